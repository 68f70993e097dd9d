// Package render is how oj shows a submission to a viewer: the wire shape of a stored
// submission, what of each case the viewer may see (hidden tests stay hidden), and a
// results-feed event as a viewer receives it. The HTTP API renders every answer through
// it, and the dispatcher renders webhook payloads through it, so that a webhook says
// exactly what the feed says to a reader token — one implementation, no second copy.
//
// It depends on the store (to read a problem version's samples) and the wire types, and
// on nothing that serves HTTP.
package render
