#!/bin/sh
# Fetch the Kafka jars the integration tests run into the per-machine cache
# (once; later runs return at once) and print the directory. CI calls this
# before the tests. Honours KZADMIN_KAFKA_LIBS and XDG_CACHE_HOME.
set -eu
cd "$(dirname "$0")/../.."
exec go run ./integration/kafka/fetchjars
