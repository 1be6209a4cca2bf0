"""``citetrain serve JUDGE``: a judge behind HTTP (FastAPI + uvicorn).

:mod:`~citetrain.serve.config` (what a server is told), :mod:`~citetrain.serve.bodies` (request
bodies read with citetrain's own record converters, checked against the limits),
:mod:`~citetrain.serve.cost` (a request's cost to the judge bounded before any NLI call),
:mod:`~citetrain.serve.guards` (Host, token, content type, the body under a cap and a deadline),
:mod:`~citetrain.serve.batcher` (requests of many clients scored in fair batches),
:mod:`~citetrain.serve.protocol` (uvicorn's h11 protocol with a header timeout, a connection
limit and JSON refusals), :mod:`~citetrain.serve.app` (the routes, the timeout),
:mod:`~citetrain.serve.server` (the token, the judge checked, uvicorn started).
"""
