package core

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// topologyAwareHintsAnnotation is the deprecated annotation upstream warns
// about, and topologyModeAnnotation its replacement.
const (
	topologyAwareHintsAnnotation = "service.kubernetes.io/topology-aware-hints"
	topologyModeAnnotation       = "service.kubernetes.io/topology-mode"
)

// ServiceWarnings returns the warnings a create or update of s answers
// with once it passed validation, in upstream's order and words
// (pkg/api/service/warnings.go GetWarningsForService, measured on
// kube-apiserver 1.33.13): the deprecated topology-aware-hints annotation;
// non-standard or non-canonical addresses in clusterIPs, externalIPs and
// loadBalancerIP (IPWarnings) and CIDRs in loadBalancerSourceRanges
// (CIDRWarnings); externalIPs of an ExternalName Service and externalName
// of any other, which are ignored.
func ServiceWarnings(s *Service) []string {
	var ws []string
	if _, ok := s.Annotations[topologyAwareHintsAnnotation]; ok {
		ws = append(ws, fmt.Sprintf("annotation %s is deprecated, please use %s instead", topologyAwareHintsAnnotation, topologyModeAnnotation))
	}
	sp := &s.Spec
	if sp.ClusterIP != "" && sp.ClusterIP != ClusterIPNone {
		for i, ip := range sp.ClusterIPs {
			ws = append(ws, IPWarnings(fmt.Sprintf("spec.clusterIPs[%d]", i), ip)...)
		}
	}
	for i, ip := range sp.ExternalIPs {
		ws = append(ws, IPWarnings(fmt.Sprintf("spec.externalIPs[%d]", i), ip)...)
	}
	if sp.LoadBalancerIP != "" {
		ws = append(ws, IPWarnings("spec.loadBalancerIP", sp.LoadBalancerIP)...)
	}
	for i, cidr := range sp.LoadBalancerSourceRanges {
		ws = append(ws, CIDRWarnings(fmt.Sprintf("spec.loadBalancerSourceRanges[%d]", i), cidr)...)
	}
	if sp.Type == ServiceTypeExternalName && len(sp.ExternalIPs) > 0 {
		ws = append(ws, fmt.Sprintf("spec.externalIPs is ignored when spec.type is %q", ServiceTypeExternalName))
	}
	if sp.Type != ServiceTypeExternalName && sp.ExternalName != "" {
		ws = append(ws, fmt.Sprintf("spec.externalName is ignored when spec.type is not %q", ServiceTypeExternalName))
	}
	return ws
}

// IPWarnings warns about an address at path that parses only sloppily
// (IPv4 parts with leading zeros, IPv4-mapped IPv6) or is IPv6 not in
// RFC 5952 form, as upstream's GetWarningsForIP. A value that does not
// parse at all gets none (validation refuses it).
func IPWarnings(path, value string) []string {
	ip, ok := ParseIPSloppy(value)
	if !ok {
		return nil
	}
	addr, err := netip.ParseAddr(value)
	if err != nil || addr.Is4In6() {
		return []string{fmt.Sprintf("%s: non-standard IP address %q will be considered invalid in a future Kubernetes release: use %q", path, value, ip.Unmap().String())}
	}
	if addr.Is6() && addr.String() != value {
		return []string{fmt.Sprintf("%s: IPv6 address %q should be in RFC 5952 canonical format (%q)", path, value, addr.String())}
	}
	return nil
}

// CIDRWarnings warns about a CIDR at path with bits set after the prefix
// length (ambiguous: a network or one address?), one that parses only
// sloppily, or an IPv6 one not in RFC 5952 form, as upstream's
// GetWarningsForCIDR. A value that does not parse gets none.
func CIDRWarnings(path, value string) []string {
	ipPart, bitsPart, found := strings.Cut(value, "/")
	if !found {
		return nil
	}
	ip, ok := ParseIPSloppy(ipPart)
	bits, err := strconv.Atoi(bitsPart)
	addrLen := 32
	if ip.Is6() {
		addrLen = 128
	}
	if !ok || err != nil || bits < 0 || bits > addrLen || bitsPart == "" || bitsPart[0] == '+' || bitsPart[0] == '-' {
		return nil
	}
	network := netip.PrefixFrom(ip, bits).Masked()
	// How Go's net.IPNet prints it: an IPv4-mapped network with at least
	// 96 bits prints as the IPv4 network.
	shown := network.String()
	if network.Addr().Is4In6() && bits >= 96 {
		shown = netip.PrefixFrom(network.Addr().Unmap(), bits-96).String()
	}
	var ws []string
	if network.Addr() != ip {
		ws = append(ws, fmt.Sprintf("%s: CIDR value %q is ambiguous in this context (should be %q or %q?)", path, value, shown, fmt.Sprintf("%s/%d", ip.Unmap().String(), addrLen)))
	}
	prefix, perr := netip.ParsePrefix(value)
	if perr != nil || prefix.Addr().Is4In6() {
		ws = append(ws, fmt.Sprintf("%s: non-standard CIDR value %q will be considered invalid in a future Kubernetes release: use %q", path, value, shown))
	}
	if perr == nil && prefix.Addr().Is6() && prefix.String() != value {
		ws = append(ws, fmt.Sprintf("%s: IPv6 CIDR value %q should be in RFC 5952 canonical format (%q)", path, value, prefix.String()))
	}
	return ws
}
