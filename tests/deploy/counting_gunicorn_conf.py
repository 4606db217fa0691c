"""The repository's gunicorn.conf.py, plus one test hook: each request a worker accepts is recorded.

``pre_request`` runs in the worker once it has read a request and before the app handles it, so
the file named by REFEREE_TEST_ACCEPTED lists exactly the requests the service took on (by their
X-Request-ID). The graceful-shutdown test checks that every one of them was answered.
"""

import os
import runpy
from pathlib import Path

_repo_conf = runpy.run_path(str(Path(__file__).resolve().parents[2] / "gunicorn.conf.py"))
globals().update({k: v for k, v in _repo_conf.items() if not k.startswith("__")})


def pre_request(worker, req):  # type: ignore[no-untyped-def]
    rid = next((value for name, value in req.headers if name.upper() == "X-REQUEST-ID"), "-")
    with open(os.environ["REFEREE_TEST_ACCEPTED"], "a", encoding="ascii") as f:
        f.write(rid + "\n")
