// Package registry is the generic store of aggsim's own resources, as
// k8s.io/apiserver/pkg/registry/generic/registry: create, get, list,
// update, delete and watch of one resource over a storage.Storage, with
// the per-resource behaviour supplied by a Strategy (defaulting hooks,
// validation, table columns, merge keys), and the strategies of every
// resource aggsim serves.
//
// # What it owns
//
//   - Store (store.go, watch.go): metadata bookkeeping (uid,
//     resourceVersion from the storage revision, creationTimestamp,
//     generateName, finalizers, deletionTimestamp), preconditions,
//     create-on-update, label and field selectors, limit/continue, watch
//     with bookmarks and 410 Expired.
//   - The strategies (strategy_*.go) and their resource descriptions
//     (ResourceInfo), and aggsim's own OpenAPI documents (openapi.go).
//
// # What it must not do
//
// It does not speak HTTP (registry/rest does), does not define wire types
// (registry/apis/<group> does), and knows nothing of proxying, discovery or
// the aggregator. Errors are *meta.StatusError values with upstream's
// codes, reasons and messages; callers match them with errors.Is against
// the meta.Err* sentinels.
package registry
