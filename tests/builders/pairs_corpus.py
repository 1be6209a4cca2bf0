"""Hand-written passages about invented people and places (for the pairs builder's tests)."""
from __future__ import annotations

from pathlib import Path

PASSAGES = [
    "Marta Kowal was born in Lodz in 1961. In 1998, Kowal moved to the small town of Brenfield. "
    "She founded a chemistry school there with 40 students. The school received a grant from the "
    "Orlen Foundation in 2003. Kowal retired in 2015 and wrote a short book about the river.",

    "The Brenfield Council defeated the Harbor Party in the 2004 election. The council had "
    "promised a new bridge over the Vessa River. Construction began in 2006, and the bridge "
    "opened to traffic in 2009. It cost 12 million euros, twice the planned budget.",

    "Tomas Brandt is a Danish sailor who lives in Aarhus. Brandt won the Baltic Cup in 1994 and "
    "again in 1999. He trained young sailors at the Aarhus Yacht Club for twenty years. In 2011, "
    "the club named its largest boat after him.",

    "The village of Oster Ness lies on a narrow peninsula in the North Sea. About 800 people live "
    "there, most of them fishermen. A lighthouse, built by the Ness Harbour Company in 1872, still "
    "guides ships into the bay. The village school closed in 1988 because too few children "
    "remained.",

    "Elena Marsh studied physics at the University of Gravenholm. She discovered a new method for "
    "measuring the salinity of glacier water. Marsh published her results in 2007 in a small "
    "journal. The Gravenholm Institute later hired her as a senior researcher.",

    "The Corvel Railway connected Ardley with the port of Halsey. Engineers of the Corvel Company "
    "completed the line in 1891. Trains carried coal and wool to the harbour three times a day. "
    "The railway closed in 1962, and its station became a museum.",

    "Ivo Renner founded the Renner Glassworks in Velden in 1923. The factory employed 300 workers "
    "at its peak. Renner's son Paul took over the business in 1950. Paul Renner sold the "
    "glassworks to the Hartmann Group in 1978.",

    "The Lisk Festival takes place every August in the town of Marrow Bay. Musicians from Norway "
    "and Scotland perform on a stage near the harbour. The first festival was held in 1985 with "
    "only six bands. Today it attracts about 15,000 visitors each year.",

    "Anna Vire became the mayor of Kettering Vale in 2012. Vire, a former teacher, promised to "
    "repair the old library. She raised 2 million pounds from local donors. The library reopened "
    "in 2014, and Vire won a second term in 2016.",

    "Mount Ferro rises 2,400 metres above the Callen valley. Climbers from Italy first reached "
    "its summit in 1887. A small hut, which the Alpine Club built in 1903, shelters hikers near "
    "the top. Snow covers the peak for seven months a year.",

    "The Duvall Orchestra was formed in Lorient in 1957. Its conductor, Michel Duvall, led the "
    "orchestra for thirty years. The orchestra recorded 45 albums and toured Japan in 1979. "
    "After Duvall died in 1991, the violinist Claire Monet became its director.",

    "Rasmus Holt designed the harbour bridge of Tellen. Holt worked for the Nordic Steel Company "
    "from 1930 to 1952. He also designed three lighthouses on the island of Skarp. In 1949, the "
    "king awarded him a gold medal for his work.",
]


def write_text(path: Path) -> Path:
    """The passages as a ``.txt`` file, one paragraph each."""
    path.write_text("\n\n".join(PASSAGES) + "\n", encoding="utf-8")
    return path
