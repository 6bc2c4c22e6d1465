package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aggsim/aggsim/aggregator"
)

// explainAccessOptions are the flags of `aggsim explain access`, named as
// kubectl auth can-i names them.
type explainAccessOptions struct {
	explainOptions
	as            string
	asGroups      []string
	namespace     string
	allNamespaces bool
	subresource   string
}

// newExplainAccessCommand builds `aggsim explain access`.
func newExplainAccessCommand() *cobra.Command {
	o := &explainAccessOptions{}
	cmd := &cobra.Command{
		Use:   "access --as=USER [--as-group=GROUP ...] VERB (RESOURCE[.GROUP][/NAME] [NAME] | NONRESOURCEURL) [-n NAMESPACE] [--subresource S]",
		Short: "Explain why a user may or may not do something: the binding and rule that allow it, or the near misses",
		Long: `Ask aggsim's authorizers, as a SubjectAccessReview would, whether USER may do
VERB on the resource (resolved through discovery as kubectl auth can-i
resolves it: plural, singular or short name, optionally with .GROUP) or on the
non-resource URL (a path starting with "/"). The user's groups are completed
as impersonation completes them (system:authenticated; a ServiceAccount's
groups).

Allowed: the decision, RBAC's reason, and the binding and rule that allow it.
Denied: the 403 message the request gets, and the near misses: a RoleBinding
of the user in another namespace, a rule for another verb, API group,
resource, subresource, resourceName or URL, a binding whose subject has the
wrong kind (User, Group, ServiceAccount), a ClusterRole aggregated into
admin/edit/view whose labels its selectors do not match, a binding to a
missing role; then what would allow it.
Reads GET ` + aggregator.DebugAccessPath + ` from the aggsim server (authorised as a get of
that non-resource URL: system:masters and cluster-admin may).`,
		Example: `  aggsim explain access --as=bob list flunders
  aggsim explain access --as=bob --as-group=devs delete flunders.wardle.example.com/my-flunder -n team
  aggsim explain access --as=system:serviceaccount:wardle:apiserver create subjectaccessreviews.authorization.k8s.io
  aggsim explain access --as=bob get /healthz`,
		Args: cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			q, err := o.query(args)
			if err != nil {
				return err
			}
			return o.run(q, cmd.OutOrStdout())
		},
	}
	o.addFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.as, "as", "", "the user to explain for (required)")
	f.StringArrayVar(&o.asGroups, "as-group", nil, "a group of the user; repeat for several")
	f.StringVarP(&o.namespace, "namespace", "n", "", "the namespace of a namespaced resource (default \"default\")")
	f.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "ask for all namespaces (a cluster-wide request)")
	f.StringVar(&o.subresource, "subresource", "", "the subresource, e.g. status")
	return cmd
}

// query builds DebugAccessPath's query from the flags and arguments.
func (o *explainAccessOptions) query(args []string) (url.Values, error) {
	if o.as == "" {
		return nil, errors.New("--as is required: the user whose access to explain")
	}
	v := url.Values{"as": {o.as}, "verb": {args[0]}}
	for _, g := range o.asGroups {
		v.Add("as-group", g)
	}
	target := args[1]
	if strings.HasPrefix(target, "/") {
		if len(args) == 3 || o.subresource != "" {
			return nil, errors.New("a non-resource URL takes no NAME or --subresource")
		}
		v.Set("path", target)
		return v, nil
	}
	resource, name, hasName := strings.Cut(target, "/")
	if len(args) == 3 {
		if hasName {
			return nil, fmt.Errorf("name given twice: %q and %q", target, args[2])
		}
		name = args[2]
	}
	v.Set("resource", resource)
	if name != "" {
		v.Set("name", name)
	}
	if o.subresource != "" {
		v.Set("subresource", o.subresource)
	}
	switch {
	case o.allNamespaces:
		v.Set("namespace", "")
	case o.namespace != "":
		v.Set("namespace", o.namespace)
	}
	return v, nil
}

func (o *explainAccessOptions) run(q url.Values, out io.Writer) error {
	return runExplainPath(&o.explainOptions, aggregator.DebugAccessPath+"?"+q.Encode(), "", out)
}
