#!/usr/bin/env bash
# Installs the non-Go admin clients the wireapi interop tests drive, into a
# per-machine cache: KafkaJS (npm) and librdkafka through its Python
# binding, confluent-kafka (PyPI wheels bundle librdkafka). Idempotent.
# KZADMIN_CLIENTS_DIR overrides the cache directory.
set -euo pipefail

KAFKAJS_VERSION=2.2.4
CONFLUENT_KAFKA_VERSION=2.16.1
dir="${KZADMIN_CLIENTS_DIR:-$HOME/.cache/kzadmin/clients}"
mkdir -p "$dir"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "clients: node and npm are needed for the KafkaJS tests" >&2
  exit 1
fi
if [ ! -f "$dir/node/node_modules/kafkajs/package.json" ] ||
   ! grep -q "\"version\": \"$KAFKAJS_VERSION\"" "$dir/node/node_modules/kafkajs/package.json"; then
  echo "clients: installing kafkajs $KAFKAJS_VERSION"
  mkdir -p "$dir/node"
  npm install --silent --no-audit --no-fund --prefix "$dir/node" "kafkajs@$KAFKAJS_VERSION" >/dev/null
fi

if [ ! -x "$dir/py/bin/python" ]; then
  python3 -m venv "$dir/py"
fi
if ! "$dir/py/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('confluent-kafka') != '$CONFLUENT_KAFKA_VERSION')" 2>/dev/null; then
  echo "clients: installing confluent-kafka $CONFLUENT_KAFKA_VERSION (librdkafka)"
  "$dir/py/bin/python" -m pip install --quiet --disable-pip-version-check "confluent-kafka==$CONFLUENT_KAFKA_VERSION"
fi
