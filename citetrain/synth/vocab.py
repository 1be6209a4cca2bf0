"""Word lists, templates and case weights of the synthetic world (:mod:`citetrain.synth.records`)."""
from __future__ import annotations

KINDS = ("correct", "missing", "misleading", "redundant", "multi", "unsupported")
CASES = ("correct", "missing", "misleading", "redundant:extra", "redundant:repeat", "multi:both",
         "multi:one", "multi:none", "multi:mid", "unsupported:cited", "unsupported:uncited")
# per statement; multi:mid statements (one in 15% of records, ~4% of statements) add to multi
_WEIGHTS = {"correct": .40, "missing": .15, "misleading": .15, "redundant": .10, "multi": .06,
            "unsupported": .10}
MID_RATE = 0.15
DUPLICATE_RATE = 0.15  # a single-passage fact also stated by a second passage

# ---------------------------------------------------------------------------------- word lists
_STARTS = ("Vel Kar Brin Ost Tal Mer Dun Fal Gor Hal Ist Jor Lun Nor Pel Quar Ros Sil Tor Ul Var "
           "Wen Yor Zel Ash Bel Cor Dra Eld Fen Gal Hern Ing Kel Lor Mal Orm Pry Rav Sten Tam "
           "Vos Bran Cal Dor Esk Grim Hol Kest Mor Nev Od Pim Rund Sev Thal Ulv Wyr").split()
_ENDS = {
    "town": "mora holm wick stead ford dale mere thorpe haven bury ton garth avik".split(),
    "river": "ra en is a ett wy on ume ast iel".split(),
    "surname": "ridge wood ley mont ane ick ow ard by".split(),
    "company": "ex ico ara ivo anta ost".split(),
    "country": "land ia onia mark avia".split(),
    "mountain": "horn crag fell spire".split(),
    "lake": "mere wyn loch ene".split(),
}
_FIRST_F = ("Tamsin Oriel Maelis Isolde Sabra Ysolda Brisa Delphine Fenna Hesper Jessamy Linnea "
            "Nerys Quilla Sorrel Vesna Xanthe Zinnia Brielle Dagny Elowen Greer Kaia Mira").split()
_FIRST_M = ("Edric Bastian Corvin Lennart Thorne Aurel Caspar Emrys Gideon Ivo Kestrel Marek Osric "
            "Perrin Rowan Tobiah Ulric Wendel Yorick Anselm Cedric Florian Hollis Jasper "
            "Leander").split()
_COMPANY_SUFFIX = "Mills Foundry Press Brewery Ironworks Glassworks Looms Shipyards".split()
_PRODUCTS = ("copper kettles|pewter lanterns|linen sails|walnut clocks|amber beads|wool blankets|"
             "cedar barrels|brass bells|rye biscuits|juniper cordial|wicker baskets|felt hats|"
             "marble busts|glazed pottery|tallow candles|leather saddles|spruce violins|"
             "silver spoons|slate tiles|hemp rope|quince jam|smoked eels|goat cheese|iron nails|"
             "oak barges|beeswax polish|woven rugs|tin whistles|paper kites|clay pipes|"
             "lace collars|pear brandy|herring oil|horn combs|sheepskin boots|cherry liqueur|"
             "glass marbles|cork floats|stone mortars|reed mats").split("|")
_COLOURS = ("red green blue yellow white black ochre crimson teal grey orange violet turquoise "
            "maroon indigo scarlet").split()
_OCCUPATIONS = ("glassblower cartographer clockmaker botanist shipwright bookbinder astronomer "
                "stonemason weaver engraver surveyor potter chandler cooper tanner apothecary "
                "locksmith printer").split()
_INSTRUMENTS = ("cello oboe lute harp viola bassoon flute zither dulcimer clarinet harpsichord "
                "mandolin").split()
_FILLERS = ("Local guidebooks describe {o} in some detail.",
            "Visitors often remark on {poss} quiet character.",
            "Older letters about {o} are kept in a regional archive.",
            "Several travel writers have described {o}.",
            "A short pamphlet about {o} circulates among collectors.")

# ------------------------------------------------------------------------------------ templates
# attr -> (statement with {n} subject, clause with {pro}/{poss}, passage sentences with {s} subject
# or {n}); every content word of the statement and the clause occurs in each passage sentence.
_T = {
    "town": {
        "country": ("{n} is a town in {v}", "{pro} is a town in {v}",
                    ("{s} is a town in {v}", "{s} is a small town in {v}")),
        "river": ("{n} lies on the river {v}", "{pro} lies on the river {v}",
                  ("{s} lies on the river {v}", "{s} lies on the river {v}, near an old ferry")),
        "founded": ("{n} was founded in {v}", "{pro} was founded in {v}",
                    ("{s} was founded in {v}",)),
        "founder": ("{n} was founded by {v}", "{pro} was founded by {v}",
                    ("{s} was founded by {v}", "{v} founded {n}")),
        "population": ("{n} has a population of {v}", "{poss} population is {v}",
                       ("{s} has a population of {v}", "{Poss} population is {v}")),
        "known_for": ("{n} is known for {poss} {v}", "{pro} is known for {poss} {v}",
                      ("{s} is known for {poss} {v}",)),
        "colour": ("The town hall of {n} is painted {v}", "{poss} town hall is painted {v}",
                   ("The town hall of {n} is painted {v}", "{Poss} town hall is painted {v}")),
    },
    "river": {
        "country": ("{n} runs through {v}", "{pro} runs through {v}", ("{s} runs through {v}",)),
        "length": ("{n} is {v} kilometres long", "{pro} is {v} kilometres long",
                   ("{s} is {v} kilometres long",)),
        "source": ("{n} rises in the {v} Mountains", "{pro} rises in the {v} Mountains",
                   ("{s} rises in the {v} Mountains", "{s} rises high in the {v} Mountains")),
        "mouth": ("{n} flows into Lake {v}", "{pro} flows into Lake {v}",
                  ("{s} flows into Lake {v}",)),
        "bridges": ("{n} is crossed by {v} bridges", "{pro} is crossed by {v} bridges",
                    ("{s} is crossed by {v} bridges",)),
        "mapper": ("{n} was first mapped by {v}", "{pro} was first mapped by {v}",
                   ("{s} was first mapped by {v}",)),
        "colour": ("The water of {n} looks {v}", "{poss} water looks {v}",
                   ("The water of {n} looks {v}", "{Poss} water looks {v}")),
    },
    "company": {
        "founded": ("{n} was founded in {v}", "{pro} was founded in {v}",
                    ("{s} was founded in {v}",)),
        "founder": ("{n} was founded by {v}", "{pro} was founded by {v}",
                    ("{s} was founded by {v}", "{v} founded {n}")),
        "hq": ("{n} has its headquarters in {v}", "{pro} has its headquarters in {v}",
               ("{s} has its headquarters in {v}",)),
        "product": ("{n} makes {v}", "{pro} makes {v}", ("{s} makes {v}",)),
        "employees": ("{n} employs {v} people", "{pro} employs {v} people",
                      ("{s} employs {v} people", "{s} employs about {v} people")),
        "colour": ("The logo of {n} is {v}", "{poss} logo is {v}",
                   ("The logo of {n} is {v}", "{Poss} logo is {v}")),
        "ceo": ("The chief executive of {n} is {v}", "{poss} chief executive is {v}",
                ("The chief executive of {n} is {v}", "{Poss} chief executive is {v}")),
    },
    "person": {
        "born": ("{n} was born in {v}", "{pro} was born in {v}", ("{s} was born in {v}",)),
        "birthplace": ("{n} was born in the town of {v}", "{pro} was born in the town of {v}",
                       ("{s} was born in the town of {v}",)),
        "occupation": ("{n} was a {v} by trade", "{pro} was a {v} by trade",
                       ("{s} was a {v} by trade",)),
        "employer": ("{n} worked for {v}", "{pro} worked for {v}", ("{s} worked for {v}",)),
        "books": ("{n} wrote {v} books", "{pro} wrote {v} books", ("{s} wrote {v} books",)),
        "instrument": ("{n} played the {v}", "{pro} played the {v}", ("{s} played the {v}",)),
    },
}
# facts split across two passages: (numeric attr, other attr, statement)
_MULTI = {
    "town": (("founded", "founder", "{n} was founded in {a} by {b}"),
             ("population", "river", "{n}, which lies on the river {b}, has a population of {a}")),
    "river": (("length", "source", "{n} rises in the {b} Mountains and is {a} kilometres long"),
              ("bridges", "mouth", "{n}, which flows into Lake {b}, is crossed by {a} bridges")),
    "company": (("founded", "founder", "{n} was founded in {a} by {b}"),
                ("founded", "product", "{n}, which makes {b}, was founded in {a}")),
    "person": (("born", "birthplace", "{n} was born in {a} in the town of {b}"),
               ("born", "occupation", "{n}, a {b} by trade, was born in {a}")),
}
_NO_MID = {"country", "founder", "birthplace"}  # too short, or sharing words with another fact
_NUMERIC = {"founded", "population", "length", "bridges", "employees", "born", "books"}
_QUESTIONS = {
    "town": ("What do you know about the town of {n}?", "Tell me about {n}.",
             "Give an overview of the town of {n}."),
    "river": ("What do you know about {n}?", "Describe {n}.", "Give an overview of {n}."),
    "company": ("What is {n}?", "Tell me about the company {n}.", "What do you know about {n}?"),
    "person": ("Who was {n}?", "What do you know about {n}?", "Tell me about {n}."),
}
_TITLES = {
    "town": ("{b}", "History of {b}", "{b} (town)"),
    "river": ("{b} (river)", "River {b}", "{b}"),
    "company": ("{b}", "History of {b}"),
    "person": ("{b}", "Life of {b}"),
}
