package aggregator

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/apis/rbac"
)

// RBACAuthorizer decides requests from Roles, ClusterRoles, RoleBindings
// and ClusterRoleBindings as upstream's RBAC authorizer
// (plugin/pkg/auth/authorizer/rbac/rbac.go): the ClusterRoleBindings that
// name the user (by user name, one of its groups, or the ServiceAccount
// its name stands for) are visited first, then, for a namespaced request,
// the RoleBindings of that namespace; the first rule of their role that
// allows the request allows it, with the reason
// `RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "bob"`
// (a RoleBinding is named "name/namespace"). Nothing allowing answers
// NoOpinion; its reason lists the roles that bindings of the user name
// but that do not exist (`RBAC: clusterrole.rbac.authorization.k8s.io "x"
// not found`), as upstream's.
//
// Unlike upstream, which lists every binding on each request, bindings are
// indexed by subject (user name or group) and namespace: a decision looks
// at the bindings of the user only. Bindings of one subject are visited in
// name order (upstream's order is its cache's). The index is fed by
// Update/Delete (the server wires them to informers) and is safe for
// concurrent use.
type RBACAuthorizer struct {
	mu           sync.RWMutex
	clusterRoles map[string]*rbac.ClusterRole
	roles        map[string]*rbac.Role // namespace/name
	// clusterBindings and roleBindings hold every binding by name
	// (namespace/name for RoleBindings), to un-index the old version.
	clusterBindings map[string]*rbac.ClusterRoleBinding
	roleBindings    map[string]*rbac.RoleBinding
	// crbBySubject holds the ClusterRoleBindings naming each subject, in
	// name order; rbBySubject the RoleBindings, per namespace.
	crbBySubject subjectIndex[*rbac.ClusterRoleBinding]
	rbBySubject  map[string]*subjectIndex[*rbac.RoleBinding]
	// allowReasons holds, per indexed binding (a *rbac.ClusterRoleBinding
	// or *rbac.RoleBinding), the reason of a decision it allows for each
	// of its subjects (allowReasons), built when the binding is indexed
	// rather than on every allowed request.
	allowReasons map[any][]string
}

// subjectIndex maps user names (ServiceAccounts by the user name they
// authenticate as) and group names to the bindings naming them, in name
// order. Two maps rather than one with prefixed keys: a lookup builds no
// string.
type subjectIndex[T any] struct {
	users, groups map[string][]T
}

func newSubjectIndex[T any]() *subjectIndex[T] {
	return &subjectIndex[T]{users: map[string][]T{}, groups: map[string][]T{}}
}

// of returns the map of key k ("u:..." or "g:...") and the bare name.
func (x *subjectIndex[T]) of(k string) (map[string][]T, string) {
	if strings.HasPrefix(k, "g:") {
		return x.groups, k[2:]
	}
	return x.users, k[2:]
}

func (x *subjectIndex[T]) add(k string, b T, name func(T) string) {
	m, n := x.of(k)
	m[n] = insertByName(m[n], b, name)
}

func (x *subjectIndex[T]) remove(k string, drop func(T) bool) {
	m, n := x.of(k)
	l := slices.DeleteFunc(slices.Clone(m[n]), drop)
	if len(l) == 0 {
		delete(m, n)
	} else {
		m[n] = l
	}
}

func (x *subjectIndex[T]) empty() bool { return len(x.users) == 0 && len(x.groups) == 0 }

// NewRBACAuthorizer returns an empty authorizer (it allows nothing until
// fed).
func NewRBACAuthorizer() *RBACAuthorizer {
	return &RBACAuthorizer{
		clusterRoles: map[string]*rbac.ClusterRole{}, roles: map[string]*rbac.Role{},
		clusterBindings: map[string]*rbac.ClusterRoleBinding{}, roleBindings: map[string]*rbac.RoleBinding{},
		crbBySubject: *newSubjectIndex[*rbac.ClusterRoleBinding](), rbBySubject: map[string]*subjectIndex[*rbac.RoleBinding]{},
		allowReasons: map[any][]string{},
	}
}

// subjectKeys returns the index keys of subjects: "u:<name>" for users
// and ServiceAccounts (by the user name they authenticate as; ns is the
// namespace of a ServiceAccount without one), "g:<name>" for groups,
// without duplicates. Subjects of other kinds never apply.
func subjectKeys(subjects []rbac.Subject, ns string) []string {
	var keys []string
	for i := range subjects {
		s := &subjects[i]
		var k string
		switch s.Kind {
		case rbac.KindUser:
			k = "u:" + s.Name
		case rbac.KindGroup:
			k = "g:" + s.Name
		case rbac.KindServiceAccount:
			sns := s.Namespace
			if sns == "" {
				sns = ns
			}
			if sns == "" {
				continue
			}
			k = "u:" + rbac.ServiceAccountUsername(sns, s.Name)
		default:
			continue
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// Update adds or replaces one RBAC object (a *rbac.Role, ClusterRole,
// RoleBinding or ClusterRoleBinding); other objects are ignored.
func (a *RBACAuthorizer) Update(obj meta.Object) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch o := obj.(type) {
	case *rbac.ClusterRole:
		a.clusterRoles[o.Name] = o
	case *rbac.Role:
		a.roles[o.Namespace+"/"+o.Name] = o
	case *rbac.ClusterRoleBinding:
		a.unindexClusterBinding(o.Name)
		a.clusterBindings[o.Name] = o
		a.allowReasons[o] = allowReasons(rbacSource{crb: o})
		for _, k := range subjectKeys(o.Subjects, "") {
			a.crbBySubject.add(k, o, func(b *rbac.ClusterRoleBinding) string { return b.Name })
		}
	case *rbac.RoleBinding:
		id := o.Namespace + "/" + o.Name
		a.unindexRoleBinding(id)
		a.roleBindings[id] = o
		a.allowReasons[o] = allowReasons(rbacSource{rb: o})
		x := a.rbBySubject[o.Namespace]
		if x == nil {
			x = newSubjectIndex[*rbac.RoleBinding]()
			a.rbBySubject[o.Namespace] = x
		}
		for _, k := range subjectKeys(o.Subjects, o.Namespace) {
			x.add(k, o, func(b *rbac.RoleBinding) string { return b.Name })
		}
	}
}

// Delete removes one RBAC object (only its kind, namespace and name
// matter).
func (a *RBACAuthorizer) Delete(obj meta.Object) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch o := obj.(type) {
	case *rbac.ClusterRole:
		delete(a.clusterRoles, o.Name)
	case *rbac.Role:
		delete(a.roles, o.Namespace+"/"+o.Name)
	case *rbac.ClusterRoleBinding:
		a.unindexClusterBinding(o.Name)
	case *rbac.RoleBinding:
		a.unindexRoleBinding(o.Namespace + "/" + o.Name)
	}
}

// OnChange is an Informer handler: Update for a created or changed
// object, Delete for a deleted one.
func (a *RBACAuthorizer) OnChange(old, cur meta.Object) {
	if cur == nil {
		if old != nil {
			a.Delete(old)
		}
		return
	}
	a.Update(cur)
}

func (a *RBACAuthorizer) unindexClusterBinding(name string) {
	old, ok := a.clusterBindings[name]
	if !ok {
		return
	}
	delete(a.clusterBindings, name)
	delete(a.allowReasons, old)
	for _, k := range subjectKeys(old.Subjects, "") {
		a.crbBySubject.remove(k, func(b *rbac.ClusterRoleBinding) bool { return b.Name == name })
	}
}

func (a *RBACAuthorizer) unindexRoleBinding(id string) {
	old, ok := a.roleBindings[id]
	if !ok {
		return
	}
	delete(a.roleBindings, id)
	delete(a.allowReasons, old)
	x := a.rbBySubject[old.Namespace]
	if x == nil {
		return
	}
	for _, k := range subjectKeys(old.Subjects, old.Namespace) {
		x.remove(k, func(b *rbac.RoleBinding) bool { return b.Name == old.Name })
	}
	if x.empty() {
		delete(a.rbBySubject, old.Namespace)
	}
}

// insertByName returns l with b in name order (a copy: readers holding
// the old slice are not disturbed).
func insertByName[T any](l []T, b T, name func(T) string) []T {
	i, _ := slices.BinarySearchFunc(l, name(b), func(e T, n string) int { return cmp.Compare(name(e), n) })
	out := make([]T, 0, len(l)+1)
	out = append(out, l[:i]...)
	out = append(out, b)
	return append(out, l[i:]...)
}

// rbacSource is the binding a visit is at: one of crb and rb is set.
type rbacSource struct {
	crb      *rbac.ClusterRoleBinding
	rb       *rbac.RoleBinding
	username string
	groups   []string
}

// describe names the binding, its role and the subject that applies, as
// upstream's clusterRoleBindingDescriber and roleBindingDescriber:
// `ClusterRoleBinding "x" of ClusterRole "y" to User "bob"`,
// `RoleBinding "x/ns" of Role "y" to Group "g"`.
func (s rbacSource) describe() string {
	subjects, ns := s.subjects()
	return s.describeTo(subjectAt(subjects, firstApplying(subjects, s.username, s.groups, ns)))
}

// subjects returns the binding's subjects and namespace ("" for a
// ClusterRoleBinding).
func (s rbacSource) subjects() ([]rbac.Subject, string) {
	if s.crb != nil {
		return s.crb.Subjects, ""
	}
	return s.rb.Subjects, s.rb.Namespace
}

// describeTo is describe for the subject sub of the binding.
func (s rbacSource) describeTo(sub *rbac.Subject) string {
	if s.crb != nil {
		b := s.crb
		return "ClusterRoleBinding " + strconv.Quote(b.Name) + " of ClusterRole " + strconv.Quote(b.RoleRef.Name) +
			" to " + rbac.DescribeSubject(sub, "")
	}
	b := s.rb
	return "RoleBinding " + strconv.Quote(b.Name+"/"+b.Namespace) + " of " + b.RoleRef.Kind + " " + strconv.Quote(b.RoleRef.Name) +
		" to " + rbac.DescribeSubject(sub, b.Namespace)
}

// allowReasons returns the reason of a decision the binding of s allows,
// `RBAC: allowed by <describe>`, for each of its subjects.
func allowReasons(s rbacSource) []string {
	subjects, _ := s.subjects()
	out := make([]string, len(subjects))
	for i := range subjects {
		out[i] = "RBAC: allowed by " + s.describeTo(&subjects[i])
	}
	return out
}

// allowReason is allowReasons(src) for the subject naming the user, as
// the binding was indexed (a holds the read lock).
func (a *RBACAuthorizer) allowReason(src rbacSource) string {
	subjects, ns := src.subjects()
	var key any = src.rb
	if src.crb != nil {
		key = src.crb
	}
	if i := firstApplying(subjects, src.username, src.groups, ns); i >= 0 {
		return a.allowReasons[key][i]
	}
	return "RBAC: allowed by " + src.describe()
}

// Authorize allows the request when a rule of a role bound to the user
// allows it (see RBACAuthorizer); otherwise NoOpinion.
func (a *RBACAuthorizer) Authorize(_ context.Context, attrs Attributes) (Decision, string, error) {
	if attrs.User == nil {
		return DecisionNoOpinion, "", nil
	}
	req := rbac.RequestAttributes{Verb: attrs.Verb, APIGroup: attrs.APIGroup, Resource: attrs.Resource,
		Subresource: attrs.Subresource, Name: attrs.Name, Path: attrs.Path, ResourceRequest: attrs.ResourceRequest}
	allowed, reason := false, ""
	var errs []string
	a.visit(attrs.User.Username, attrs.User.Groups, attrs.Namespace, func(src rbacSource, rules []rbac.PolicyRule, err string) bool {
		if err != "" {
			errs = append(errs, err)
			return true
		}
		for i := range rules {
			if rbac.RuleAllows(&req, &rules[i]) {
				allowed, reason = true, a.allowReason(src)
				return false
			}
		}
		return true
	})
	if allowed {
		return DecisionAllow, reason, nil
	}
	if len(errs) > 0 {
		return DecisionNoOpinion, "RBAC: " + aggregateMessage(errs), nil
	}
	return DecisionNoOpinion, "", nil
}

// aggregateMessage joins error messages as upstream's errors.Aggregate:
// one alone, several (without repeats) as "[a, b]".
func aggregateMessage(msgs []string) string {
	var uniq []string
	for _, m := range msgs {
		if !slices.Contains(uniq, m) {
			uniq = append(uniq, m)
		}
	}
	if len(uniq) == 1 {
		return uniq[0]
	}
	return "[" + strings.Join(uniq, ", ") + "]"
}

// visit calls f for every binding of the user, as upstream's
// VisitRulesFor: ClusterRoleBindings first, then the RoleBindings of
// namespace (when not empty), each with the rules of its role, or with
// the error of a role that cannot be found. f returns false to stop.
func (a *RBACAuthorizer) visit(username string, groups []string, namespace string, f func(src rbacSource, rules []rbac.PolicyRule, err string) bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	src := rbacSource{username: username, groups: groups}
	// the user's cluster bindings, merged from its keys in name order
	var crbBuf [16]*rbac.ClusterRoleBinding
	crbs := bindingsOf(crbBuf[:0], &a.crbBySubject, username, groups, func(b *rbac.ClusterRoleBinding) string { return b.Name })
	for _, b := range crbs {
		rules, err := a.roleRules(b.RoleRef, "")
		src.crb = b
		if !f(src, rules, err) {
			return
		}
	}
	x := a.rbBySubject[namespace]
	if namespace == "" || x == nil {
		return
	}
	src.crb = nil
	var rbBuf [16]*rbac.RoleBinding
	rbs := bindingsOf(rbBuf[:0], x, username, groups, func(b *rbac.RoleBinding) string { return b.Name })
	for _, b := range rbs {
		rules, err := a.roleRules(b.RoleRef, namespace)
		src.rb = b
		if !f(src, rules, err) {
			return
		}
	}
}

// bindingsOf appends to buf the bindings of x naming the user or one of
// its groups, in name order without repeats.
func bindingsOf[T comparable](buf []T, x *subjectIndex[T], username string, groups []string, name func(T) string) []T {
	buf = append(buf, x.users[username]...)
	n := 0
	if len(buf) > 0 {
		n++
	}
	for _, g := range groups {
		if l := x.groups[g]; len(l) > 0 {
			buf = append(buf, l...)
			n++
		}
	}
	if n > 1 { // more than one sorted list: merge
		slices.SortFunc(buf, func(p, q T) int { return cmp.Compare(name(p), name(q)) })
		buf = slices.Compact(buf)
	}
	return buf
}

// firstApplying returns the index of the first subject naming the user
// (for a visited binding the index guarantees there is one), or -1.
func firstApplying(subjects []rbac.Subject, username string, groups []string, ns string) int {
	for i := range subjects {
		if rbac.SubjectApplies(&subjects[i], username, groups, ns) {
			return i
		}
	}
	return -1
}

// subjectAt returns &subjects[i], or an empty subject for i -1.
func subjectAt(subjects []rbac.Subject, i int) *rbac.Subject {
	if i < 0 {
		return &rbac.Subject{}
	}
	return &subjects[i]
}

// roleRules returns the rules of ref (a Role of namespace or a
// ClusterRole), or upstream's error text: the lister's NotFound
// (`clusterrole.rbac.authorization.k8s.io "x" not found`) or
// `unsupported role reference kind: "K"`.
func (a *RBACAuthorizer) roleRules(ref rbac.RoleRef, namespace string) ([]rbac.PolicyRule, string) {
	switch ref.Kind {
	case "ClusterRole":
		if r, ok := a.clusterRoles[ref.Name]; ok {
			return r.Rules, ""
		}
		return nil, "clusterrole.rbac.authorization.k8s.io " + strconv.Quote(ref.Name) + " not found"
	case "Role":
		if r, ok := a.roles[namespace+"/"+ref.Name]; ok {
			return r.Rules, ""
		}
		return nil, "role.rbac.authorization.k8s.io " + strconv.Quote(ref.Name) + " not found"
	}
	return nil, "unsupported role reference kind: " + strconv.Quote(ref.Kind)
}

var _ Authorizer = (*RBACAuthorizer)(nil)

// rbacResources are the stores the RBAC authorizer's informers watch.
var rbacResources = []meta.GroupResource{
	{Group: rbac.GroupRBAC, Resource: "clusterroles"},
	{Group: rbac.GroupRBAC, Resource: "roles"},
	{Group: rbac.GroupRBAC, Resource: "clusterrolebindings"},
	{Group: rbac.GroupRBAC, Resource: "rolebindings"},
}
