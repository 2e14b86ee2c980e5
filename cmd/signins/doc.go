// Command signins measures dashboard sign-ins: the time of one sign-in
// (Argon2id hashing, the session and audit writes to a state file), alone and
// in a burst of concurrent ones, and the peak memory of the process during
// the burst. It is what the README's dashboard figures come from:
//
//	go run ./cmd/signins [--burst 50] [--max-hashing 0] [--rounds 20]
//
// The state file lives in a temporary directory; the program removes it.
//
// It imports account, access, state/bolt and the standard library.
package main
