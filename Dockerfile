# Card Referee: the service image. Build: docker build -t card-referee:0.1.0 .
# Two stages: the first installs the project (and only what its pyproject.toml asks for) into a
# virtualenv; the second is the slim runtime with that virtualenv, run as a non-root user.
ARG PYTHON_IMAGE=python:3.11.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
RUN python -m venv /opt/venv
COPY pyproject.toml setup.py MANIFEST.in README.md openapi.yaml ./
COPY docs ./docs
COPY service ./service
# setup.py copies openapi.yaml and docs/rules/ into the package (card_referee/_bundled/): real files.
RUN /opt/venv/bin/pip install --no-cache-dir . \
 && /opt/venv/bin/python -c "from card_referee.resources import openapi_path; p = openapi_path(); assert '_bundled' in str(p) and p.read_bytes().startswith(b'openapi:')"

FROM ${PYTHON_IMAGE} AS runtime
LABEL org.opencontainers.image.title="card-referee" \
      org.opencontainers.image.description="A stateless HTTP referee for traditional card games"
RUN groupadd --system --gid 10001 referee \
 && useradd --system --uid 10001 --gid referee --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin referee
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
# Nothing is written under / at run time: metrics files go to /tmp (an emptyDir in k8s/), worker
# heartbeats to /dev/shm, logs to stdout; no .pyc files are written.
# Sealed unless told otherwise: without seal keys (REFEREE_SEAL_KEYS or a mounted
# REFEREE_SEAL_KEYS_FILE) the container exits at once with status 78 and says why.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    REFEREE_MODE=sealed \
    REFEREE_BIND=0.0.0.0:8000 \
    REFEREE_METRICS_BIND=0.0.0.0:9100 \
    REFEREE_PROBE_BIND=0.0.0.0:8081 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/referee-metrics
USER 10001:10001
EXPOSE 8000 8081 9100
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8081/healthz', timeout=2).status != 200)"]
# gunicorn with the package's own settings (service/gunicorn_conf.py): gevent workers, drain on SIGTERM.
CMD ["card-referee", "serve"]
