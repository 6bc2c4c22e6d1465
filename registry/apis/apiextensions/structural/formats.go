package structural

import (
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// supportedFormats are the formats upstream validates in CRD schemas, with
// "-" removed as go-openapi normalizes names (supportedVersionedFormats in
// apiextensions-apiserver's pkg/apiserver/validation/formats.go). Any other
// format is ignored by the value validator.
var supportedFormats = map[string]bool{
	"bsonobjectid": true, "uri": true, "email": true, "hostname": true, "ipv4": true, "ipv6": true,
	"cidr": true, "mac": true, "uuid": true, "uuid3": true, "uuid4": true, "uuid5": true, "isbn": true,
	"isbn10": true, "isbn13": true, "creditcard": true, "ssn": true, "hexcolor": true, "rgbcolor": true,
	"byte": true, "password": true, "date": true, "duration": true, "datetime": true,
}

// The format checkers' expressions, compiled on first use (lazyRegexp).
var (
	rxHostname   = lazyRegexp(`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$`)
	rxUUID       = lazyRegexp(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	rxUUID3      = lazyRegexp(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	rxUUID4      = lazyRegexp(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`)
	rxUUID5      = lazyRegexp(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`)
	rxDateTime   = lazyRegexp(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`)
	rxBSON       = lazyRegexp(`^[0-9a-fA-F]{24}$`)
	rxSSN        = lazyRegexp(`^\d{3}[- ]?\d{2}[- ]?\d{4}$`)
	rxHexcolor   = lazyRegexp(`^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	rxRGBcolor   = lazyRegexp(`^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$`)
	rxBase64     = lazyRegexp(`^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$`)
	rxISBN10     = lazyRegexp(`^(?:[0-9]{9}X|[0-9]{10})$`)
	rxISBN13     = lazyRegexp(`^(?:[0-9]{13})$`)
	rxCreditCard = lazyRegexp(`^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$`)
	rxDuration   = lazyRegexp(`((\d+)\s*([A-Za-zµ]+))`)
	rxNotDigit   = lazyRegexp(`[^0-9]+`)
	rxISBNStrip  = lazyRegexp(`[\s-]+`)
)

// formatCheckers mirror kube-openapi's strfmt.Default checks (strfmt/default.go,
// time.go, date.go, duration.go, with the asaskevich/govalidator checks it uses).
var formatCheckers = map[string]func(string) bool{
	"bsonobjectid": func(s string) bool { return rxBSON().MatchString(s) },
	"uri": func(s string) bool {
		_, err := url.ParseRequestURI(s)
		return err == nil
	},
	"email": func(s string) bool {
		a, err := mail.ParseAddress(s)
		return err == nil && a.Address != ""
	},
	"hostname": func(s string) bool {
		if !rxHostname().MatchString(s) || len(s) > 255 {
			return false
		}
		for _, p := range strings.Split(s, ".") {
			if len(p) > 63 {
				return false
			}
		}
		return true
	},
	"ipv4": func(s string) bool { return parseIPSloppy(s) != nil && strings.Contains(s, ".") },
	"ipv6": func(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ":") },
	"cidr": func(s string) bool {
		i := strings.IndexByte(s, '/')
		if i < 0 {
			return false
		}
		_, _, err := net.ParseCIDR(stripLeadingZeros(s[:i]) + s[i:])
		return err == nil
	},
	"mac": func(s string) bool {
		_, err := net.ParseMAC(s)
		return err == nil
	},
	"uuid":       func(s string) bool { return rxUUID().MatchString(s) },
	"uuid3":      func(s string) bool { return rxUUID3().MatchString(s) },
	"uuid4":      func(s string) bool { return rxUUID4().MatchString(s) },
	"uuid5":      func(s string) bool { return rxUUID5().MatchString(s) },
	"isbn":       func(s string) bool { return isISBN(s, 10) || isISBN(s, 13) },
	"isbn10":     func(s string) bool { return isISBN(s, 10) },
	"isbn13":     func(s string) bool { return isISBN(s, 13) },
	"creditcard": isCreditCard,
	"ssn": func(s string) bool {
		return s != "" && len(s) == 11 && rxSSN().MatchString(s)
	},
	"hexcolor": func(s string) bool { return rxHexcolor().MatchString(s) },
	"rgbcolor": func(s string) bool { return rxRGBcolor().MatchString(s) },
	"byte":     func(s string) bool { return rxBase64().MatchString(s) },
	"password": func(string) bool { return true },
	"date":     isDate,
	"duration": isDuration,
	"datetime": func(s string) bool {
		if len(s) < 4 {
			return false
		}
		parts := strings.Split(strings.ToLower(s), "t")
		if len(parts) < 2 || !isDate(parts[0]) {
			return false
		}
		m := rxDateTime().FindStringSubmatch(parts[1])
		if len(m) == 0 {
			return false
		}
		return m[1] <= "23" && m[2] <= "59" && m[3] <= "59"
	},
}

func isDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// parseIPSloppy accepts IPv4 octets with leading zeros, as
// k8s.io/utils/net.ParseIPSloppy does.
func parseIPSloppy(s string) net.IP {
	return net.ParseIP(stripLeadingZeros(s))
}

func stripLeadingZeros(s string) string {
	if strings.Contains(s, ":") {
		return s
	}
	parts := strings.Split(s, ".")
	for i, p := range parts {
		for len(p) > 1 && p[0] == '0' {
			p = p[1:]
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}

var durationUnits = [][]string{
	{"ns", "nano"}, {"us", "µs", "micro"}, {"ms", "milli"}, {"s", "sec"},
	{"m", "min"}, {"h", "hr", "hour"}, {"d", "day"}, {"w", "wk", "week"},
}

func isDuration(s string) bool {
	if _, err := time.ParseDuration(s); err == nil {
		return true
	}
	for _, m := range rxDuration().FindAllStringSubmatch(s, -1) {
		if _, err := strconv.Atoi(m[2]); err != nil {
			return false
		}
		unit := strings.ToLower(strings.TrimSpace(m[3]))
		for _, variants := range durationUnits {
			last := len(variants) - 1
			for i, v := range variants {
				if (i == last && strings.HasPrefix(unit, v)) || strings.EqualFold(v, unit) {
					return true
				}
			}
		}
	}
	return false
}

func isISBN(s string, version int) bool {
	sanitized := rxISBNStrip().ReplaceAllString(s, "")
	var sum int32
	switch version {
	case 10:
		if !rxISBN10().MatchString(sanitized) {
			return false
		}
		for i := 0; i < 9; i++ {
			sum += int32(i+1) * int32(sanitized[i]-'0')
		}
		if sanitized[9] == 'X' {
			sum += 10 * 10
		} else {
			sum += 10 * int32(sanitized[9]-'0')
		}
		return sum%11 == 0
	case 13:
		if !rxISBN13().MatchString(sanitized) {
			return false
		}
		factor := []int32{1, 3}
		for i := 0; i < 12; i++ {
			sum += factor[i%2] * int32(sanitized[i]-'0')
		}
		return (int32(sanitized[12]-'0'))-((10-(sum%10))%10) == 0
	}
	return false
}

func isCreditCard(s string) bool {
	sanitized := rxNotDigit().ReplaceAllString(s, "")
	if !rxCreditCard().MatchString(sanitized) {
		return false
	}
	var sum int64
	shouldDouble := false
	for i := len(sanitized) - 1; i >= 0; i-- {
		d := int64(sanitized[i] - '0')
		if shouldDouble {
			d *= 2
			if d >= 10 {
				d = d%10 + 1
			}
		}
		sum += d
		shouldDouble = !shouldDouble
	}
	return sum%10 == 0
}

// lazyRegexp returns expr compiled on first call, so that the package's
// initialisation (run by every process start, also by starts that never
// validate a CRD) compiles nothing; it panics on an invalid expr, as
// regexp.MustCompile does.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
