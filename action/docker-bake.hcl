// Images for `proxybench run --runtime docker`: one target per proxy named in PROXIES, built from
// its folder in PROXY_CONTEXTS (a JSON object of proxy -> folder, written by `proxybench images`:
// your proxies-dir's folder of that name, else the built-in one), else <PROXIES_DIR>/<name>; one
// per coprocessor a study needs (the extensibility study's sidecars), named in COPROCESSORS or
// in COPROCESSOR_CONTEXTS (coprocessor -> folder, from `proxybench images --study`), else
// <COPROCESSORS_DIR>/<name>, tagged proxybench/coprocessor-<name>:<IMAGE_TAG>; and the upstream
// on demand, each tagged proxybench/<name>:<IMAGE_TAG> and cached in the GitHub Actions cache
// under its own scope. Used by action/action.yml; locally:
// PROXIES=nginx,envoy COPROCESSORS=csharp docker buildx bake -f action/docker-bake.hcl --load
// (without the GitHub cache: add --set '*.cache-from=' --set '*.cache-to=').

variable "PROXIES" {
  default = ""
}
variable "PROXIES_DIR" {
  default = "proxies"
}
variable "PROXY_CONTEXTS" {
  default = "{}"
}
variable "COPROCESSORS" {
  default = ""
}
variable "COPROCESSORS_DIR" {
  default = "coprocessors"
}
variable "COPROCESSOR_CONTEXTS" {
  default = "{}"
}
variable "UPSTREAM_DIR" {
  default = "upstream"
}
variable "IMAGE_TAG" {
  default = "local"
}
variable "CACHE_SCOPE_PREFIX" {
  default = "proxybench"
}
// The folder of this file (counted.Dockerfile is there); the action sets it to its own path.
variable "ACTION_DIR" {
  default = "action"
}

// `direct` sends the load straight to the upstream: it has no image.
function "with_images" {
  params = [list]
  result = [for p in split(",", list) : trimspace(p) if trimspace(p) != "" && trimspace(p) != "direct"]
}

// The coprocessors named in the list or in the JSON object of contexts, each once, sorted.
function "coprocessors" {
  params = [list, contexts]
  result = sort(distinct(concat(with_images(list), keys(jsondecode(contexts)))))
}

// The upstream runs natively in `proxybench run`; its image is built on demand
// (`docker buildx bake -f action/docker-bake.hcl upstream`).
// A group naming a target whose matrix is empty fails: the coprocessors join only when there are some.
group "default" {
  targets = concat(["proxy"], length(coprocessors(COPROCESSORS, COPROCESSOR_CONTEXTS)) > 0 ? ["coprocessor"] : [])
}

target "upstream" {
  context    = UPSTREAM_DIR
  dockerfile = "Dockerfile"
  tags       = ["proxybench/upstream:${IMAGE_TAG}"]
  cache-from = ["type=gha,scope=${CACHE_SCOPE_PREFIX}-upstream"]
  cache-to   = ["type=gha,mode=max,scope=${CACHE_SCOPE_PREFIX}-upstream"]
  output     = ["type=docker"]
}

target "proxy" {
  name = "proxy-${p}"
  matrix = {
    p = with_images(PROXIES)
  }
  context    = lookup(jsondecode(PROXY_CONTEXTS), p, "${PROXIES_DIR}/${p}")
  dockerfile = "Dockerfile"
  tags       = ["proxybench/${p}:${IMAGE_TAG}"]
  cache-from = ["type=gha,scope=${CACHE_SCOPE_PREFIX}-${p}"]
  cache-to   = ["type=gha,mode=max,scope=${CACHE_SCOPE_PREFIX}-${p}"]
  output     = ["type=docker"]
}

target "coprocessor" {
  name = "coprocessor-${c}"
  matrix = {
    c = coprocessors(COPROCESSORS, COPROCESSOR_CONTEXTS)
  }
  context    = lookup(jsondecode(COPROCESSOR_CONTEXTS), c, "${COPROCESSORS_DIR}/${c}")
  dockerfile = "Dockerfile"
  tags       = ["proxybench/coprocessor-${c}:${IMAGE_TAG}"]
  cache-from = ["type=gha,scope=${CACHE_SCOPE_PREFIX}-coprocessor-${c}"]
  cache-to   = ["type=gha,mode=max,scope=${CACHE_SCOPE_PREFIX}-coprocessor-${c}"]
  output     = ["type=docker"]
}

// `proxybench count --runtime docker`: each proxy's image (the target
// above, from the same folder, so a pull request's Dockerfile is what is counted) with Valgrind
// added by counted.Dockerfile, tagged proxybench/<name>:<IMAGE_TAG>-valgrind. Locally:
// PROXIES=nginx docker buildx bake -f action/docker-bake.hcl counted --load
target "counted" {
  name = "counted-${p}"
  matrix = {
    p = with_images(PROXIES)
  }
  context    = ACTION_DIR
  dockerfile = "counted.Dockerfile"
  contexts = {
    proxy = "target:proxy-${p}"
  }
  tags       = ["proxybench/${p}:${IMAGE_TAG}-valgrind"]
  cache-from = ["type=gha,scope=${CACHE_SCOPE_PREFIX}-${p}-valgrind"]
  cache-to   = ["type=gha,mode=max,scope=${CACHE_SCOPE_PREFIX}-${p}-valgrind"]
  output     = ["type=docker"]
}
