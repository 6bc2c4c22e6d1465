package rest

import (
	"encoding/json"
	"net/http"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// subScale is the /scale subresource of resources whose strategy is a
// registry.ScaleProvider (custom resources with subresources.scale).
const subScale = "scale"

// serveScale answers GET, PUT and PATCH of /scale as an autoscaling/v1
// Scale: a write sets the object's desired replicas (through the main
// resource's update, so schema validation, generation and managedFields
// follow; a stale metadata.resourceVersion in the Scale is 409) and
// answers the new Scale.
func (a *API) serveScale(w http.ResponseWriter, r *http.Request, rq resourceRequest, verb string) error {
	sp := rq.store.Strategy().(registry.ScaleProvider)
	f, o, err := beginWrite(r, "UpdateOptions")
	if verb == "get" {
		if f, err = negotiation.Output(r, negotiation.TargetObject); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	obj, err := rq.store.Get(r.Context(), rq.namespace, rq.name)
	if err != nil {
		return err
	}
	cur, err := sp.ScaleOf(obj)
	if err != nil {
		return meta.NewInternalError(err)
	}
	if verb == "get" {
		negotiation.WriteObject(w, f, http.StatusOK, cur)
		return nil
	}
	body, err := ReadBody(r)
	if err != nil {
		return err
	}
	if verb == "patch" {
		pt, err := patchTypeOf(r.Header.Get("Content-Type"))
		if err != nil {
			return err
		}
		if pt == PatchApply || pt == PatchStrategic {
			// aggsim applies JSON and merge patches to a Scale
			return meta.NewUnsupportedMediaType(PatchJSON + ", " + PatchMerge + ", " + PatchApply)
		}
		orig, _ := json.Marshal(cur)
		if body, err = applyPatch(pt, orig, body, nil); err != nil {
			return err
		}
	} else if body, err = bodyToJSONFor(r.Header.Get("Content-Type"), body, registry.ResourceInfo{Kind: "Scale", Group: "autoscaling", Version: "v1"}); err != nil {
		return err
	}
	var want registry.Scale
	if err := json.Unmarshal(body, &want); err != nil {
		return meta.NewBadRequest(err.Error())
	}
	if rv := want.Metadata.ResourceVersion; rv != "" && rv != obj.GetObjectMeta().ResourceVersion {
		info := rq.store.Info()
		return meta.NewConflict(meta.GroupResource{Group: info.Group, Resource: info.Resource}, rq.name, "the object has been modified; please apply your changes to the latest version and try again")
	}
	live, _ := rq.store.Get(r.Context(), rq.namespace, rq.name)
	if err := sp.SetReplicas(obj, want.Spec.Replicas); err != nil {
		return err
	}
	if err := trackUpdate(rq.store, live, obj, managerName(r, o), subScale); err != nil {
		return err
	}
	out, err := rq.store.Update(o.ctx(r.Context()), obj)
	if err != nil {
		return err
	}
	sc, err := sp.ScaleOf(out)
	if err != nil {
		return meta.NewInternalError(err)
	}
	negotiation.WriteObject(w, f, http.StatusOK, sc)
	return nil
}
