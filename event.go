package garrison

import "unicode/utf8"

// MaxEventMessageBytes caps the message of an event (an instance's status message, an
// entity's event): runners and providers write them, and they are stored and returned
// with every read of their owner.
const MaxEventMessageBytes = 4096

// TruncatedMarker ends a message that Truncate shortened.
const TruncatedMarker = "… [truncated]"

// TruncateMessage returns msg cut to MaxEventMessageBytes (see Truncate).
func TruncateMessage(msg string) string { return Truncate(msg, MaxEventMessageBytes) }

// Truncate returns s unchanged when it has at most limit bytes, else its longest prefix
// that ends on a UTF-8 character boundary and, with TruncatedMarker appended, fits in
// limit bytes. A limit too small for the marker yields just the marker.
func Truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := max(limit-len(TruncatedMarker), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + TruncatedMarker
}
