package aggregatortest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// settleCRDsLimit bounds settleCRDs.
const settleCRDsLimit = 60 * time.Second

// settleCRDs waits, bounded by settleCRDsLimit, until every
// CustomResourceDefinition the server at base holds has settled: its
// names were judged (NamesAccepted True or False), and one whose names
// were accepted is Established and answers a list in each served
// version (not 404; the list selects nothing, so no conversion webhook
// is called). The replayed steps' "sleep" lines gave the
// reference time to do this (3 s after creating CRDs); aggsim's replay
// slept 200 ms, after which a create answered 404 on a loaded machine
// (TestConversionWebhookFaultsMatchReference's create-v1, once in five
// -race runs).
func settleCRDs(t *testing.T, client *http.Client, base string) {
	t.Helper()
	deadline := time.Now().Add(settleCRDsLimit)
	for {
		pending, err := unsettledCRD(client, base)
		if err == nil && pending == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("CustomResourceDefinitions not settled within %v: %s %v", settleCRDsLimit, pending, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// unsettledCRD names the first CRD that has not settled (see
// settleCRDs), "" when all have.
func unsettledCRD(client *http.Client, base string) (string, error) {
	var list struct {
		Items []struct {
			Metadata struct {
				Name              string  `json:"name"`
				DeletionTimestamp *string `json:"deletionTimestamp"`
			} `json:"metadata"`
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Plural string `json:"plural"`
				} `json:"names"`
				Versions []struct {
					Name   string `json:"name"`
					Served bool   `json:"served"`
				} `json:"versions"`
			} `json:"spec"`
			Status struct {
				Conditions []struct {
					Type   string `json:"type"`
					Status string `json:"status"`
				} `json:"conditions"`
			} `json:"status"`
		} `json:"items"`
	}
	code, b, err := settleGet(client, base+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
	if err != nil || code != http.StatusOK {
		return "", fmt.Errorf("list CRDs: %d %v %s", code, err, b)
	}
	if err := json.Unmarshal([]byte(b), &list); err != nil {
		return "", err
	}
	for _, crd := range list.Items {
		if crd.Metadata.DeletionTimestamp != nil {
			continue
		}
		cond := map[string]string{}
		for _, c := range crd.Status.Conditions {
			cond[c.Type] = c.Status
		}
		switch {
		case cond["NamesAccepted"] == "False":
			continue
		case cond["NamesAccepted"] != "True":
			return crd.Metadata.Name + " (names not judged yet)", nil
		case cond["Established"] != "True":
			return crd.Metadata.Name + " (not Established yet)", nil
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			p := "/apis/" + crd.Spec.Group + "/" + v.Name + "/" + crd.Spec.Names.Plural + "?fieldSelector=metadata.name%3Dsettle-crds-matches-nothing"
			if code, _, err := settleGet(client, base+p); err != nil || code == http.StatusNotFound {
				return crd.Metadata.Name + " (" + p + " not served yet)", nil
			}
		}
	}
	return "", nil
}

func settleGet(client *http.Client, url string) (int, string, error) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b)), err
}
