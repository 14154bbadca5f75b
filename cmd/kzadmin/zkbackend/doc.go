// Package zkbackend is kzadmin's ZooKeeper backend (--zookeeper): it
// implements backend.Backend with zkadmin's Admin, reading and writing
// Kafka's znodes directly as Kafka's own tools did before 3.0, with
// kzadmin's validation and partition limits on every write.
package zkbackend
