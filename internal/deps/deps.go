package deps
import (
_ "golang.org/x/net/http2"
_ "github.com/gorilla/mux"
_ "go.etcd.io/bbolt"
_ "sigs.k8s.io/yaml"
_ "github.com/prometheus/client_golang/prometheus"
_ "github.com/prometheus/client_golang/prometheus/testutil/promlint"
_ "github.com/spf13/cobra"
_ "k8s.io/client-go/dynamic"
_ "k8s.io/client-go/discovery"
_ "k8s.io/client-go/restmapper"
_ "k8s.io/client-go/tools/clientcmd"
_ "github.com/gorilla/websocket"
)
