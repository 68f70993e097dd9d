#!/usr/bin/env bash
# test-cluster.sh — make test-cluster: oj on hosts that are network namespaces of this
# machine (a data host with PostgreSQL primary + standby, Redis + 2 replicas + 3 Sentinels
# and MinIO; an API host; three worker hosts, one without Java) under SUBMISSIONS
# submissions (default 1000) while Redis and PostgreSQL fail over and workers are cut
# off, killed and drained: first with Redis Sentinel (TestCluster: the Redis master is
# SIGKILLed twice, the second time the one the first failover promoted, and every
# submission must finish), then the same against
# a six-node Redis Cluster (TestClusterRedisCluster), then with Sentinel on TLS and the
# install guide's ACL users (TestClusterSentinelTLSACL), all in cmd/ojd/cluster_test.go.
# Each prints a table of checks and "N passed, M failed" and fails on any failed check.
#
# Needs root (namespaces, the sandbox, PostgreSQL as postgres) and what `scripts/deps.sh
# test` installs; MinIO is built on first use as scripts/minio.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."

[[ $(id -u) -eq 0 ]] || { echo "test-cluster: run as root" >&2; exit 1; }
for c in ip nsenter runuser redis-server; do
	command -v "$c" >/dev/null || { echo "test-cluster: $c not found: run scripts/deps.sh test" >&2; exit 1; }
done
minio="$(go env GOPATH)/bin/minio"
if [[ ! -x $minio ]]; then
	echo "building MinIO (several minutes the first time)…" >&2
	go install github.com/minio/minio@latest >&2
fi
n=${SUBMISSIONS:-1000}
[[ $n =~ ^[0-9]+$ ]] || { echo "test-cluster: SUBMISSIONS=$n is not a number" >&2; exit 2; }
OJ_TEST_CLUSTER=1 OJ_TEST_CLUSTER_SUBMISSIONS=$n \
	exec nice -n 10 go test -count=1 -run '^TestCluster(RedisCluster|SentinelTLSACL)?$' -v -timeout 90m ./cmd/ojd
