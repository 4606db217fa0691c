"""gunicorn reads this file when started from the repository root; the settings themselves live in
the package (service/gunicorn_conf.py), so an installed wheel serves alike:
``card-referee serve`` or ``gunicorn -c python:service.gunicorn_conf``."""

from service.gunicorn_conf import *
