package chattoken

import (
	"github.com/golang-jwt/jwt/v5"
)

// SignForTest signs claims with the service's current key under header kid
// (the current key's id when kid is ""): tokens Mint never makes (another
// audience, another issuer, no expiry).
func (s *Service) SignForTest(c jwt.MapClaims, kid string) string {
	k, err := s.currentKey(s.now())
	if err != nil {
		panic(err)
	}
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, c)
	if kid == "" {
		kid = k.ID
	}
	t.Header["kid"] = kid
	v, err := t.SignedString(k.Secret)
	if err != nil {
		panic(err)
	}
	return v
}
