# A proxy's image with Valgrind added, for `proxybench count --runtime docker`:
# the proxy's own image (the named context `proxy`: the bake target counted-<proxy> builds it from
# the proxy's Dockerfile, so a pull request's changes to the proxy are what is counted), plus
# valgrind and callgrind_control (a Perl script) from the image's own package manager. proxybench
# runs it with valgrind as the entrypoint and the proxy's program as its argument, and as the
# caller's user (--user): the user this image ends with is never the one that runs.
# hadolint ignore=DL3006
FROM proxy
# hadolint ignore=DL3002
USER 0
# The distribution's own valgrind, whatever it is: pinning a version would tie this file to one base.
# hadolint ignore=DL3008,DL3018
RUN set -eu; \
    if command -v valgrind >/dev/null && command -v callgrind_control >/dev/null; then :; \
    elif command -v apk >/dev/null; then apk add --no-cache valgrind perl; \
    elif command -v apt-get >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends valgrind perl && rm -rf /var/lib/apt/lists/*; \
    else echo "counted.Dockerfile: no apk or apt-get in this image: install valgrind and perl in the proxy's own Dockerfile" >&2; exit 1; \
    fi; \
    valgrind --version
