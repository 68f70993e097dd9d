// Package stream drives execution through Redis Streams: one stream per lane read by the
// consumer group oj-workers, plus the dead-letter notification stream. Redis holds no
// truth (invariant 1): every decision is PostgreSQL's, and losing every key here loses no
// submission because the reconciler re-drives from PostgreSQL.
//
// All key names are built in this file. Each lane's keys carry a hash tag ({light},
// {heavy}, …) so that they share a Redis Cluster slot.
package stream

import "oj/core/job"

// Group is the consumer group every worker reads the lane streams through.
const Group = "oj-workers"

// Keys builds key names under a prefix ("oj" in production; tests use their own).
type Keys struct {
	Prefix string
}

// Jobs is the stream of lane's job entries: oj:{light}:jobs.
func (k Keys) Jobs(lane job.Lane) string { return k.Prefix + ":{" + string(lane) + "}:jobs" }

// DLQ is the stream of dead-letter notifications: oj:{dlq}:events.
func (k Keys) DLQ() string { return k.Prefix + ":{dlq}:events" }

// BuildRequests is the stream of tool build requests the API sends the workers (see
// core/build): oj:{build}:requests.
func (k Keys) BuildRequests() string { return k.Prefix + ":{build}:requests" }

// BuildReply is the list one build request's answer is pushed to: oj:{build}:reply:<id>.
func (k Keys) BuildReply(id string) string { return k.Prefix + ":{build}:reply:" + id }

// Stream returns the stream an outbox row's lane goes to ("dlq" or a job lane).
func (k Keys) Stream(lane string) string {
	if lane == "dlq" {
		return k.DLQ()
	}
	return k.Jobs(job.Lane(lane))
}

// Entry fields.
const (
	FieldSubmission = "sid"
	FieldTrace      = "trace"
)
