package synth

// mix64 is the splitmix64 finalizer: a bijective, well-mixing map on uint64.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hashString folds s into h (FNV-1a over the bytes) and mixes the result.
func hashString(h uint64, s string) uint64 {
	h ^= 0xcbf29ce484222325
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return mix64(h)
}

// unit maps the top 53 bits of x to [0, 1).
func unit(x uint64) float64 { return float64(x>>11) / (1 << 53) }
