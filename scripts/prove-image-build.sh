#!/usr/bin/env bash
# Prove the Dockerfile builds and the image serves, on a machine with no Docker engine and no
# registry access (this project's build machines). Not part of CI: it downloads a Debian base
# system (~100 MB) and takes a few minutes. Needs root and Debian's buildah and debootstrap:
#   apt-get install -y --no-install-recommends buildah debootstrap
#
# 1. A stand-in for the pinned base image: a minimal Debian bookworm root filesystem made by
#    debootstrap, with bookworm's Python 3.11 linked where the official python image has it
#    (/usr/local/bin/python), committed locally under the Dockerfile's base image name.
# 2. `buildah bud --isolation chroot` of the Dockerfile as it is, with the base name pointed at
#    the stand-in (the only difference from a real build).
# 3. The image's own CMD run in the built container (chroot isolation, host network, a free
#    loopback port), then /healthz, /readyz and one game over HTTP, then SIGTERM.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-/var/tmp/referee-image-proof}
STORE=(--storage-driver vfs --root "$WORK/storage" --runroot "$WORK/run")
BASE=localhost/python:3.11.11-slim-bookworm
IMAGE=localhost/card-referee:proof
PORT=${PORT:-18765}
mkdir -p "$WORK"

if [ -n "${REBUILD_BASE:-}" ]; then buildah "${STORE[@]}" rmi -f "$BASE" >/dev/null 2>&1 || true; fi
if ! buildah "${STORE[@]}" inspect --type image "$BASE" >/dev/null 2>&1; then
    echo "== stand-in base image (debootstrap bookworm minbase + python3)"
    if [ ! -x "$WORK/rootfs/usr/bin/python3" ] || [ ! -x "$WORK/rootfs/usr/sbin/groupadd" ]; then
        rm -rf "$WORK/rootfs"
        debootstrap --variant=minbase --include=python3,python3-venv,python3-pip,ca-certificates,passwd \
        bookworm "$WORK/rootfs" http://deb.debian.org/debian >"$WORK/debootstrap.log" 2>&1
    fi
    ln -sf /usr/bin/python3 "$WORK/rootfs/usr/local/bin/python"
    # This machine reaches PyPI through an egress proxy with its own CA: the stand-in carries the
    # host's trust store so pip inside the build can verify it (a real base image needs nothing).
    cp /etc/ssl/certs/ca-certificates.crt "$WORK/rootfs/etc/ssl/certs/ca-certificates.crt"
    ctr=$(buildah "${STORE[@]}" from scratch)
    mnt=$(buildah "${STORE[@]}" mount "$ctr")
    cp -a "$WORK/rootfs/." "$mnt/"
    buildah "${STORE[@]}" umount "$ctr" >/dev/null
    buildah "${STORE[@]}" config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        --env PIP_CERT=/etc/ssl/certs/ca-certificates.crt --cmd python3 "$ctr"
    buildah "${STORE[@]}" commit "$ctr" "$BASE" >/dev/null
    buildah "${STORE[@]}" rm "$ctr" >/dev/null
fi

echo "== build the Dockerfile (base = stand-in)"
buildah "${STORE[@]}" bud --isolation chroot --layers=false --build-arg "PYTHON_IMAGE=$BASE" -t "$IMAGE" . \
    >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; exit 1; }
echo "image user and CMD: $(buildah "${STORE[@]}" inspect --type image --format '{{.OCIv1.Config.User}} {{.OCIv1.Config.Cmd}}' "$IMAGE")"

echo "== run the image's CMD and talk to it on 127.0.0.1:$PORT"
ctr=$(buildah "${STORE[@]}" from "$IMAGE")
trap 'buildah "${STORE[@]}" rm "$ctr" >/dev/null 2>&1 || true' EXIT
KEY=$(python3 -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())')  # the image is sealed by default
buildah "${STORE[@]}" run --isolation chroot --env "REFEREE_BIND=127.0.0.1:$PORT" --env "REFEREE_SEAL_KEYS=$KEY" "$ctr" -- \
    card-referee serve >"$WORK/run.log" 2>&1 &  # the image's CMD (the package card_referee and its own settings)
runner=$!
for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -fsS "http://127.0.0.1:$PORT/healthz"; echo
curl -fsS "http://127.0.0.1:$PORT/readyz"; echo
curl -fsS -X POST -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$PORT/v1/games/schnapsen/new" \
    | python3 -c 'import json, sys; e = json.load(sys.stdin); print("new schnapsen game:", e["status"], "legal moves:", len(e["legal_moves"]))'
curl -fsS -o /dev/null -w 'openapi.yaml from the wheel: %{http_code}\n' "http://127.0.0.1:$PORT/openapi.yaml"
pkill -TERM -f "gunicorn --config /app/gunicorn.conf.py" || true
wait "$runner" || true
echo "== proven: the Dockerfile builds and its CMD serves"
