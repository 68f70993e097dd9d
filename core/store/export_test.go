package store

// ListSubmissionsSQL lets the tests EXPLAIN the exact query ListSubmissions sends.
var ListSubmissionsSQL = listSubmissionsSQL
