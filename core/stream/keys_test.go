package stream

import (
	"fmt"
	"strings"
	"testing"

	"oj/core/job"
)

// hashTag is the part of key Redis Cluster hashes: the text between the first "{" and
// the first "}" after it, when non-empty; otherwise the whole key.
func hashTag(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}

// Every key oj touches carries a hash tag, and the keys one operation may touch together
// (a lane's stream with its group, the build requests with their replies) share it, so
// that each multi-key command, transaction or script stays in one Cluster slot; no two
// lanes share a tag, so lanes spread over shards.
func TestKeysShareTheirLaneSlot(t *testing.T) {
	k := Keys{Prefix: "oj"}
	tags := map[string]string{}
	for _, lane := range job.Lanes {
		tag := hashTag(k.Jobs(lane))
		if tag != string(lane) {
			t.Errorf("%s: hash tag %q, want the lane %q", k.Jobs(lane), tag, lane)
		}
		if other, dup := tags[tag]; dup {
			t.Errorf("lanes %s and %s share the hash tag %q", other, lane, tag)
		}
		tags[tag] = string(lane)
		if got := hashTag(k.Stream(string(lane))); got != tag {
			t.Errorf("Stream(%s) hashes on %q, want %q", lane, got, tag)
		}
	}
	if got := hashTag(k.DLQ()); got != "dlq" || hashTag(k.Stream("dlq")) != "dlq" {
		t.Errorf("the dead-letter stream hashes on %q, want dlq", got)
	}
	if _, dup := tags["dlq"]; dup {
		t.Error("a lane is named dlq")
	}
	for _, id := range []string{"1", "a-b-c", "{x}"} {
		if got := hashTag(k.BuildReply(id)); got != hashTag(k.BuildRequests()) {
			t.Errorf("build reply %s hashes on %q, the requests on %q: their transaction would cross slots", id, got, hashTag(k.BuildRequests()))
		}
	}
	for _, key := range []string{k.DLQ(), k.BuildRequests(), k.BuildReply("1"), k.Jobs(job.Lanes[0])} {
		if hashTag(key) == key {
			t.Errorf("%s carries no hash tag", key)
		}
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
