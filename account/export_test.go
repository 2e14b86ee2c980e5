package account

// Checked is the number of password checks (Argon2id derivations) verify has
// run, for tests that a sign-in does the same work whatever the email.
func (s *Service) Checked() int64 { return s.checked.Load() }

// DummyParams are the parameters of the hash an unknown email is checked
// against.
func (s *Service) DummyParams() (HashParams, error) {
	h, err := parsePHC(s.dummy)
	return h.params, err
}
