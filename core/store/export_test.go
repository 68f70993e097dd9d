package store

// ListSubmissionsSQL lets the tests EXPLAIN the exact query ListSubmissions sends.
var ListSubmissionsSQL = listSubmissionsSQL

// JSONValue lets the tests fuzz the encoding of jsonb values.
var JSONValue = jsonValue
