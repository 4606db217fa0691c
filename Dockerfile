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
COPY pyproject.toml README.md openapi.yaml ./
COPY service ./service
# The wheel carries service/openapi.yaml (the file, not the repository's symlink).
RUN /opt/venv/bin/pip install --no-cache-dir . \
 && /opt/venv/bin/python -c "from service.resources import openapi_path; assert openapi_path().read_bytes().startswith(b'openapi:')"

FROM ${PYTHON_IMAGE} AS runtime
LABEL org.opencontainers.image.title="card-referee" \
      org.opencontainers.image.description="A stateless HTTP referee for traditional card games"
RUN groupadd --system --gid 10001 referee \
 && useradd --system --uid 10001 --gid referee --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin referee
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY gunicorn.conf.py ./
# Nothing is written under / at run time: metrics files go to /tmp (an emptyDir in k8s/), worker
# heartbeats to /dev/shm, logs to stdout; no .pyc files are written.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    REFEREE_BIND=0.0.0.0:8000 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/referee-metrics
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]
CMD ["gunicorn", "--config", "/app/gunicorn.conf.py", "service:create_app()"]
