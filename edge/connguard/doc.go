// Package connguard guards a server against slow clients without a timer
// update per request.
//
// fasthttp's ReadTimeout, WriteTimeout and IdleTimeout set a connection
// deadline three times per request, and each setting is a Go runtime timer
// update. On the edge's hottest path (a cached card detail on a keep-alive
// connection) those updates cost more than the handler. A Listener instead
// tracks the phase each connection is in, with a coarse clock, in one atomic
// word, and one sweeper goroutine per listener expires the connections that
// overstayed their phase by setting a deadline in the past, so the blocked
// read or write fails as it would at fasthttp's own deadline:
//
//   - reading: from the first byte of a request (or from accept, for the
//     first request of a connection) until its response is written, at most
//     Read. A request that does not arrive in time fails its read with a
//     timeout error; fasthttp answers 408 through its ErrorHandler.
//   - writing: from the response's first write until the connection reads
//     again (the whole response, streamed ones included, as fasthttp's
//     WriteTimeout), at most Write. A client that does not read fails the
//     blocked write. A body sent through ReadFrom (a file: fasthttp's
//     sendfile path, the bulk downloads) restarts the phase every 256 KiB,
//     so a large file is bounded by its progress, not its duration.
//   - idle: from the first read after a response until the next request's
//     first byte, at most Idle; fasthttp closes the connection.
//
// Timeouts are exact to one tick of the clock (an eighth of the shortest
// timeout, at most 250 ms). A connection whose phase ends within the same
// tick as its expiry may still be expired; it was at its timeout. The
// handler's time counts toward reading (the phase ends at the response's
// first write): a handler slower than Read still writes its response, and
// the connection is closed at its next read.
//
// It imports only the standard library (net, sync/atomic, time).
//
// # Caveats
//
// One sweeper goroutine runs per Listener until it is closed; a connection
// is expired by a deadline in the past, so a blocked read or write fails as
// at a deadline of its own, and the caller (fasthttp) closes it.
package connguard
