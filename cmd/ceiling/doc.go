// Command ceiling is the reference of the load harness: a minimal fasthttp
// server answering every request with the same JSON body, the most a
// fasthttp server can do here. cardbench runs it on the edge's CPU with the
// bytes of a real card-detail response.
//
//	ceiling --addr 127.0.0.1:PORT --body FILE
//
// It imports fasthttp and the standard library.
package main
