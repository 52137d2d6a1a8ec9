# The libcurl inside the wheels (bash, sourced by scripts/build-wheel and scripts/install-package): built by the
# project, static, with only what the client uses. docs/install.md#whats-inside-a-wheel says what is in it and why.
#
#   trunk_lean_curl    builds it once into build/lean-curl/<version>/prefix and prints that prefix; returns 1 and
#                      says why on stderr when it cannot (no network to Debian's mirror, no dpkg-source)
#
# Its source is the distribution's own: the version of the libcurl development package installed here
# (libcurl4-openssl-dev), with the distribution's security patches, fetched by apt-get from the deb-src twin of
# the machine's apt sources. apt checks it against the archive's signed index, as for any package, so nothing
# unverified is compiled. The system's libcurl links every optional protocol and library the distribution
# enables (LDAP, RTMP, SSH, Kerberos, IDN, PSL, HTTP/2, brotli, zstd: 30 libraries in the wheel); this one has:
#   - HTTP and HTTPS only (HTTP_ONLY): the client speaks HTTP/1.1 to one host (client.cpp says why not HTTP/2);
#   - OpenSSL 3, linked statically from the distribution's libssl-dev, the one TLS library;
#   - zlib, statically: the client asks for gzip and deflate, nothing else;
#   - the threaded resolver (getaddrinfo on a thread), proxies from the environment, no cookies' public-suffix
#     list, no IDN (the host is an ASCII name);
#   - no compiled-in CA bundle: the client chooses the system's bundle at run time (tls_trust.cpp), so one wheel
#     finds it on Debian, Fedora, SUSE, Alpine and the others; OpenSSL's default paths stay a last resort.

trunk_lean_curl() {
  local root version upstream dir prefix apt_dir src build log
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  version="$(dpkg-query -W -f='${source:Version}' libcurl4-openssl-dev 2>/dev/null)" || {
    echo "lean-curl: libcurl4-openssl-dev is not installed (scripts/install-system-deps installs it)" >&2
    return 1
  }
  dir="$root/build/lean-curl/$version"
  prefix="$dir/prefix"
  # The stamp names the recipe: a change to this file builds again.
  local recipe
  recipe="$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)"
  if [ -f "$prefix/lib/libcurl.a" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$recipe" ]; then
    echo "$prefix"
    return 0
  fi
  command -v dpkg-source >/dev/null || { echo "lean-curl: dpkg-source is missing (package dpkg-dev)" >&2; return 1; }
  rm -rf "$dir"
  mkdir -p "$dir"
  log="$dir/build.log"

  # apt's own download and verification, with the machine's sources turned into deb-src, in a directory of ours.
  apt_dir="$dir/apt"
  mkdir -p "$apt_dir/sources" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/download"
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed -E 's/^Types:.*/Types: deb-src/' "$f" >"$apt_dir/sources/$(basename "$f")"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && sed -nE 's/^deb(\s)/deb-src\1/p' "$f" >"$apt_dir/sources/$(basename "$f" .list)-src.list"
  done
  local apt=(apt-get -q -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt_dir/sources"
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=$(id -un)")
  if ! "${apt[@]}" update >>"$log" 2>&1 \
    || ! (cd "$apt_dir/download" && "${apt[@]}" source --download-only "curl=$version") >>"$log" 2>&1; then
    echo "lean-curl: could not fetch Debian's source of curl $version (log: $log)" >&2
    tail -n 5 "$log" >&2
    return 1
  fi
  src="$dir/src"
  dpkg-source -x "$apt_dir/download/curl_${version#*:}.dsc" "$src" >>"$log" 2>&1 || {
    echo "lean-curl: dpkg-source could not unpack curl $version (log: $log)" >&2
    return 1
  }

  build="$dir/build"
  local launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
  # Every feature the client does not use is off by name, so a newer curl's defaults cannot bring one back
  # unnoticed (an option an older curl lacks is only a warning of CMake's).
  if ! cmake -S "$src" -B "$build" -G Ninja "${launcher[@]}" -Wno-dev \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
      -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON \
      -DBUILD_CURL_EXE=OFF -DBUILD_TESTING=OFF -DENABLE_CURL_MANUAL=OFF -DBUILD_LIBCURL_DOCS=OFF \
      -DHTTP_ONLY=ON -DCURL_USE_OPENSSL=ON -DOPENSSL_USE_STATIC_LIBS=ON -DCURL_ZLIB=ON -DZLIB_USE_STATIC_LIBS=ON \
      -DUSE_NGHTTP2=OFF -DUSE_NGTCP2=OFF -DUSE_QUICHE=OFF -DUSE_MSH3=OFF -DCURL_BROTLI=OFF -DCURL_ZSTD=OFF \
      -DUSE_LIBIDN2=OFF -DCURL_USE_LIBPSL=OFF -DCURL_USE_LIBSSH2=OFF -DCURL_USE_LIBSSH=OFF -DCURL_USE_GSSAPI=OFF \
      -DCURL_DISABLE_LDAP=ON -DCURL_DISABLE_LDAPS=ON -DUSE_LIBRTMP=OFF -DCURL_DISABLE_COOKIES=ON \
      -DCURL_DISABLE_NTLM=ON -DENABLE_THREADED_RESOLVER=ON -DENABLE_ARES=OFF \
      -DCURL_CA_BUNDLE=none -DCURL_CA_PATH=none -DCURL_CA_FALLBACK=ON >>"$log" 2>&1 \
    || ! cmake --build "$build" >>"$log" 2>&1 || ! cmake --install "$build" >>"$log" 2>&1; then
    echo "lean-curl: building curl $version failed (log: $log)" >&2
    tail -n 20 "$log" >&2
    return 1
  fi
  echo "$recipe" >"$dir/stamp"
  echo "$prefix"
}
