package admission

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
	"github.com/aggsim/aggsim/registry/apis/apiextensions/celrules"
)

// exempt reports whether writes of info are never sent to webhooks:
// upstream's IsExemptAdmissionConfigurationResource (the webhook
// configurations and admission policies and their bindings).
func exempt(info registry.ResourceInfo) bool {
	if info.Group != registry.GroupAdmissionRegistration {
		return false
	}
	switch info.Resource {
	case "validatingwebhookconfigurations", "mutatingwebhookconfigurations",
		"validatingadmissionpolicies", "validatingadmissionpolicybindings",
		"mutatingadmissionpolicies", "mutatingadmissionpolicybindings":
		return true
	}
	return false
}

// ruleMatches mirrors upstream's rules.Matcher
// (k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules): the
// operation, group, version, resource (with subresource forms "*",
// "res", "res/*", "*/sub", "*/*") and scope of a all match r.
func ruleMatches(r admissionregistration.RuleWithOperations, a *registry.AdmissionAttributes) bool {
	op := false
	for _, o := range r.Operations {
		if o == "*" || o == a.Operation {
			op = true
			break
		}
	}
	if !op || !oneOf(r.APIGroups, a.Info.Group) || !oneOf(r.APIVersions, a.Info.Version) {
		return false
	}
	res := false
	for _, s := range r.Resources {
		if resourceMatches(s, a.Info.Resource, a.Subresource) {
			res = true
			break
		}
	}
	if !res {
		return false
	}
	if r.Scope == nil || *r.Scope == "*" {
		return true
	}
	isNamespaceObject := a.Info.Group == "" && a.Info.Resource == "namespaces"
	switch *r.Scope {
	case "Namespaced":
		return !isNamespaceObject && a.Namespace != ""
	case "Cluster":
		return isNamespaceObject || a.Namespace == ""
	}
	return false
}

func oneOf(list []string, v string) bool {
	for _, x := range list {
		if x == "*" || x == v {
			return true
		}
	}
	return false
}

// resourceMatches is one entry of rule.resources against resource/sub.
func resourceMatches(pattern, resource, sub string) bool {
	r, s, hasSub := strings.Cut(pattern, "/")
	if !hasSub {
		return sub == "" && (r == "*" || r == resource)
	}
	return (r == "*" || r == resource) && (s == "*" || s == sub)
}

// celVars are the variables of a match condition (upstream's
// matchconditions with the admission environment): object, oldObject,
// request, authorizer and authorizer.requestResource (see addAuthorizer).
var (
	celOnce sync.Once
	celEnvs [3]*cel.Env
	celErr  error
)

// Environments: envMatch for webhook match conditions, envPolicy for
// ValidatingAdmissionPolicies (params, namespaceObject, variables too).
const (
	envMatch = iota
	envPolicy
	envMutation // envPolicy with the Object and JSONPatch types (mutating_policy.go)
)

func celEnvFor(kind int) (*cel.Env, error) {
	celOnce.Do(func() {
		celEnvs[envMatch], celErr = admissionregistration.CELEnv(false, true, false)
		if celErr == nil {
			celEnvs[envPolicy], celErr = admissionregistration.CELEnv(true, true, true)
			if celErr == nil {
				celEnvs[envMutation], celErr = admissionregistration.MutationCELEnv()
			}
		}
	})
	return celEnvs[kind], celErr
}

type programKey struct {
	env  int
	expr string
}

var (
	progMu sync.Mutex
	progs  = map[programKey]cel.Program{}
)

// program compiles expr once (configurations are validated on write, so a
// compile error here is rare and reported as an evaluation error).
func program(kind int, expr string) (cel.Program, error) {
	progMu.Lock()
	defer progMu.Unlock()
	if p, ok := progs[programKey{kind, expr}]; ok {
		return p, nil
	}
	env, err := celEnvFor(kind)
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, iss.Err()
	}
	p, err := env.Program(ast, celrules.RuntimeProgramOptions()...)
	if err != nil {
		return nil, err
	}
	if len(progs) > 4096 {
		clear(progs)
	}
	progs[programKey{kind, expr}] = p
	return p, nil
}

// evalMatchConditions mirrors upstream's matchconditions.Matcher: every
// condition is evaluated; one that is false means no match (even when
// others failed); otherwise the errors, each `expression '<expr>'
// resulted in error: <err>`, are returned for the failure policy.
func evalMatchConditions(_ context.Context, env int, conds []admissionregistration.MatchCondition, vars map[string]any) (bool, []error) {
	var errs []error
	for _, c := range conds {
		p, err := program(env, c.Expression)
		if err != nil {
			errs = append(errs, fmt.Errorf("expression '%s' resulted in error: %v", c.Expression, err))
			continue
		}
		out, _, err := p.Eval(vars)
		if err != nil {
			errs = append(errs, fmt.Errorf("expression '%s' resulted in error: %v", c.Expression, err))
			continue
		}
		b, ok := out.Value().(bool)
		if !ok {
			errs = append(errs, fmt.Errorf("expression '%s' resulted in error: expected bool, got %s", c.Expression, out.Type()))
			continue
		}
		if !b {
			return false, nil
		}
	}
	return len(errs) == 0, errs
}
