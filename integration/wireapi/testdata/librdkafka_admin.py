"""Drives librdkafka's admin client (through confluent-kafka, its Python
binding) against a cluster whose controller is kzadmind, and prints what
each call returned as one JSON object; the Go test (librdkafka_test.go)
checks it, and ZooKeeper and the brokers behind it. Arguments: the
bootstrap address and a prefix for the topic names."""

import json
import sys

from confluent_kafka import ElectionType, KafkaException, TopicCollection, TopicPartition
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewPartitions,
                                   NewTopic, ResourceType)

TIMEOUT = 30


def error_name(exc):
    """The Kafka error name a failed future carries, e.g. TOPIC_ALREADY_EXISTS."""
    err = exc.args[0] if exc.args else None
    return err.name() if hasattr(err, "name") else str(exc)


def only(futures):
    """The result of the single future of a dict of futures."""
    (future,) = futures.values()
    return future.result()


def partitions_of(description):
    return {str(p.id): {"leader": p.leader.id if p.leader else -1,
                        "replicas": [r.id for r in p.replicas], "isr": [r.id for r in p.isr]}
            for p in description.partitions}


def run(bootstrap, prefix):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    a, b = prefix + "-a", prefix + "-b"
    out = {}

    for future in admin.create_topics([NewTopic(a, 3, 2, config={"retention.ms": "120000"}), NewTopic(b, 1, 1)],
                                      operation_timeout=TIMEOUT).values():
        future.result()
    try:
        only(admin.create_topics([NewTopic(a, 1, 1)], operation_timeout=TIMEOUT))
        out["createdAgain"] = "created"
    except KafkaException as exc:
        out["createdAgain"] = error_name(exc)
    try:
        only(admin.create_topics([NewTopic(prefix + "-dry", 2, 1)], validate_only=True))
        out["validateOnly"] = "ok"
    except KafkaException as exc:
        out["validateOnly"] = error_name(exc)

    only(admin.create_partitions([NewPartitions(a, 5)], operation_timeout=TIMEOUT))

    resource = ConfigResource(ResourceType.TOPIC, a, incremental_configs=[
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.SET),
        ConfigEntry("retention.ms", None, incremental_operation=AlterConfigOpType.DELETE),
    ])
    only(admin.incremental_alter_configs([resource]))
    entries = only(admin.describe_configs([ConfigResource(ResourceType.TOPIC, a)]))
    out["configs"] = {name: {"value": e.value, "source": int(e.source), "default": e.is_default}
                      for name, e in entries.items() if name in ("cleanup.policy", "retention.ms")}

    elected = admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition(a, 0)]).result()
    out["elected"] = {f"{tp.topic}-{tp.partition}": (error_name(KafkaException(err)) if err else None)
                      for tp, err in elected.items()}

    described = admin.describe_topics(TopicCollection([a, b]))
    out["described"] = {name: partitions_of(f.result()) for name, f in described.items()}
    cluster = admin.describe_cluster().result()
    out["cluster"] = {"controller": cluster.controller.id if cluster.controller else -1,
                      "nodes": sorted(n.id for n in cluster.nodes), "clusterId": cluster.cluster_id}
    metadata = admin.list_topics(timeout=TIMEOUT)
    out["controllerId"] = metadata.controller_id

    only(admin.delete_topics([b], operation_timeout=TIMEOUT))
    out["listed"] = sorted(admin.list_topics(timeout=TIMEOUT).topics)
    return out


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1], sys.argv[2])))
