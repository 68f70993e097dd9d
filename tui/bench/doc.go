// Package bench holds the dashboard's "Speed" benchmark: one full refresh (every call a
// refresh makes, decoding, the model's update and View) against a real API over a Redis
// holding 100,000 stream entries and 10,000 pending entries, and a PostgreSQL holding
// 20,000 submissions (a full page for the Submissions view). It is test-only; it starts
// the API from core/api the way core/api's own tests do, which the dashboard itself never
// imports.
package bench
