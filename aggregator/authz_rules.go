package aggregator

import (
	"errors"

	"github.com/aggsim/aggsim/registry/apis/authentication"
	"github.com/aggsim/aggsim/registry/apis/authorization"
	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// RuleResolver lists the rules an authorizer grants a user in a namespace,
// for SelfSubjectRulesReview, mirroring authorizer.RuleResolver
// (k8s.io/apiserver/pkg/authorization/authorizer/rule.go): resource and
// non-resource rules, whether the list may be incomplete, and the error
// met while listing (the answer's evaluationError).
type RuleResolver interface {
	RulesFor(u *authentication.UserInfo, namespace string) ([]authorization.ResourceRule, []authorization.NonResourceRule, bool, error)
}

// RulesFor lists "*" on everything, as upstream's alwaysAllowAuthorizer.
func (AlwaysAllow) RulesFor(*authentication.UserInfo, string) ([]authorization.ResourceRule, []authorization.NonResourceRule, bool, error) {
	return []authorization.ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
		[]authorization.NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}, false, nil
}

// RulesFor lists nothing, as upstream's alwaysDenyAuthorizer.
func (AlwaysDeny) RulesFor(*authentication.UserInfo, string) ([]authorization.ResourceRule, []authorization.NonResourceRule, bool, error) {
	return nil, nil, false, nil
}

// RulesFor lists Delegate's rules: kube-apiserver's privileged-group
// authorizer resolves no rules of its own.
func (a SystemMastersAuthorizer) RulesFor(u *authentication.UserInfo, ns string) ([]authorization.ResourceRule, []authorization.NonResourceRule, bool, error) {
	return rulesOf(a.Delegate, u, ns)
}

// RulesFor lists Delegate's rules.
func (a ImpersonationAuthorizer) RulesFor(u *authentication.UserInfo, ns string) ([]authorization.ResourceRule, []authorization.NonResourceRule, bool, error) {
	return rulesOf(a.Delegate, u, ns)
}

// RulesFor concatenates its authorizers' rules, incomplete when one is,
// with their errors joined, as upstream's union rule resolver.
func (u UnionAuthorizer) RulesFor(user *authentication.UserInfo, ns string) ([]authorization.ResourceRule, []authorization.NonResourceRule, bool, error) {
	var res []authorization.ResourceRule
	var nonRes []authorization.NonResourceRule
	incomplete := false
	var errs []error
	for _, z := range u {
		r, n, inc, err := rulesOf(z, user, ns)
		res, nonRes = append(res, r...), append(nonRes, n...)
		incomplete = incomplete || inc
		if err != nil {
			errs = append(errs, err)
		}
	}
	return res, nonRes, incomplete, errors.Join(errs...)
}

// RulesFor lists the rules of every role bound to the user (cluster-wide
// and in namespace), in visiting order, each rule with resources as a
// resource rule and each with non-resource URLs as a non-resource rule;
// the roles that cannot be found give the error, as upstream's RBAC
// RulesFor.
func (a *RBACAuthorizer) RulesFor(u *authentication.UserInfo, namespace string) ([]authorization.ResourceRule, []authorization.NonResourceRule, bool, error) {
	var res []authorization.ResourceRule
	var nonRes []authorization.NonResourceRule
	var errs []string
	a.visit(u.Username, u.Groups, namespace, func(_ rbacSource, rules []rbac.PolicyRule, err string) bool {
		if err != "" {
			errs = append(errs, err)
			return true
		}
		for _, r := range rules {
			if len(r.Resources) > 0 {
				res = append(res, authorization.ResourceRule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames})
			}
			if len(r.NonResourceURLs) > 0 {
				nonRes = append(nonRes, authorization.NonResourceRule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
			}
		}
		return true
	})
	var err error
	if len(errs) > 0 {
		err = errors.New(aggregateMessage(errs))
	}
	return res, nonRes, false, err
}

// rulesOf asks a for its rules; an authorizer that cannot list them
// answers nothing, incomplete.
func rulesOf(a Authorizer, u *authentication.UserInfo, ns string) ([]authorization.ResourceRule, []authorization.NonResourceRule, bool, error) {
	if r, ok := a.(RuleResolver); ok {
		return r.RulesFor(u, ns)
	}
	return nil, nil, true, nil
}

var (
	_ RuleResolver = AlwaysAllow{}
	_ RuleResolver = AlwaysDeny{}
	_ RuleResolver = SystemMastersAuthorizer{}
	_ RuleResolver = ImpersonationAuthorizer{}
	_ RuleResolver = UnionAuthorizer(nil)
	_ RuleResolver = (*RBACAuthorizer)(nil)
)
