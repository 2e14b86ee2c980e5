package oauth

import "net/url"

// ParseAuthorizeForTest exposes parseAuthorize: the parameters, the error
// that cannot go back to the app and the one that can.
func ParseAuthorizeForTest(q url.Values) (client, redirect string, direct, later error) {
	p, d, l := parseAuthorize(q)
	if d != nil {
		direct = d
	}
	if l != nil {
		later = l
	}
	return p.ClientID, p.RedirectURI, direct, later
}

// ParseClientMetadataForTest exposes parseClientMetadata.
var ParseClientMetadataForTest = parseClientMetadata

// CheckClientIDURLForTest exposes checkClientIDURL.
func CheckClientIDURLForTest(id string) error {
	_, err := checkClientIDURL(id)
	return err
}
