// Drives KafkaJS's admin client against a cluster whose controller is
// kzadmind, and prints what each call returned as one JSON object; the Go
// test (kafkajs_test.go) checks it, and ZooKeeper and the brokers behind
// it. Arguments: the bootstrap address and a prefix for the topic names.
'use strict';
const { Kafka, logLevel, ConfigResourceTypes } = require('kafkajs');

async function run(bootstrap, prefix) {
  const kafka = new Kafka({
    clientId: 'kzadmin-interop-kafkajs',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 8 },
  });
  const admin = kafka.admin();
  await admin.connect();
  const a = `${prefix}-a`;
  const b = `${prefix}-b`;
  const out = {};
  try {
    // b leaves both counts out: KafkaJS sends -1 for them (the broker
    // defaults), at a CreateTopics version below the one where Kafka
    // documents -1.
    out.created = await admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: a, numPartitions: 3, replicationFactor: 2, configEntries: [{ name: 'retention.ms', value: '120000' }] },
        { topic: b },
      ],
    });
    out.createdAgain = await admin.createTopics({ topics: [{ topic: a, numPartitions: 1 }] });
    out.cluster = await admin.describeCluster();
    await admin.createPartitions({ topicPartitions: [{ topic: a, count: 5 }] });
    // No polling: the answers come once every broker has the change, so
    // whichever broker KafkaJS asks next knows it.
    out.metadata = await admin.fetchTopicMetadata({ topics: [a, b] });
    // Move partition 0 of a onto the broker it lacks, keeping its leader.
    const p0 = out.metadata.topics.find((t) => t.name === a).partitions.find((p) => p.partitionId === 0);
    const missing = [1, 2, 3].find((id) => !p0.replicas.includes(id));
    out.reassignTarget = [p0.replicas[0], missing];
    await admin.alterPartitionReassignments({
      topics: [{ topic: a, partitionAssignment: [{ partition: 0, replicas: out.reassignTarget }] }],
    });
    out.reassignments = await admin.listPartitionReassignments({ topics: [{ topic: a, partitions: [0, 1] }] });
    // AlterConfigs (the legacy API) replaces the topic's whole set.
    await admin.alterConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: a, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
    });
    out.configs = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: a, configNames: ['cleanup.policy', 'retention.ms'] }],
    });
    await admin.deleteTopics({ topics: [b], timeout: 30000 });
    out.listed = await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
  return out;
}

run(process.argv[2], process.argv[3]).then(
  (out) => process.stdout.write(JSON.stringify(out) + '\n'),
  (err) => {
    const detail = err && typeof err === 'object' ? JSON.stringify({ ...err, message: err.message }) : '';
    process.stderr.write(`${(err && err.stack) || err}\n${detail}\n`);
    process.exit(1);
  },
);
