"""``citetrain serve JUDGE``: a judge behind HTTP (FastAPI + uvicorn).

:mod:`~citetrain.serve.config` (what a server is told), :mod:`~citetrain.serve.bodies` (request
bodies read with citetrain's own record converters, checked against the limits),
:mod:`~citetrain.serve.batcher` (requests of many clients scored as one batch),
:mod:`~citetrain.serve.app` (the routes, the body cap, the token, the timeout).
"""
