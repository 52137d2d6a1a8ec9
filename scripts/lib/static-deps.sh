# The libraries the wheels link statically (bash, sourced by scripts/build-wheel and scripts/install-package), built
# by the project. docs/install.md#whats-inside-a-wheel says what is in them and why.
#
#   trunk_static_deps    builds them once into build/static-deps/<versions>/prefix and prints that prefix; returns 1
#                        and says why on stderr when it cannot (no network to the distribution's mirror, no
#                        dpkg-source)
#
# Their source is the distribution's own: the versions of the development packages installed here
# (libcurl4-openssl-dev, libsimdjson-dev), with the distribution's patches, fetched by apt-get from the deb-src twin
# of the machine's apt sources. apt checks them against the archive's signed index, as for any package, so nothing
# unverified is compiled. OpenSSL and zlib need no build: their development packages ship static libraries.
#
# libcurl: the system's links every optional protocol and library the distribution enables (LDAP, RTMP, SSH,
# Kerberos, IDN, PSL, HTTP/2, brotli, zstd: 30 libraries in the wheel); this one has
#   - HTTP and HTTPS only (HTTP_ONLY): the client speaks HTTP/1.1 to one host (client.cpp says why not HTTP/2);
#   - OpenSSL 3, the one TLS library, and zlib: the client asks for gzip and deflate, nothing else;
#   - the threaded resolver (getaddrinfo on a thread), proxies from the environment; no cookies, no IDN (the host
#     is an ASCII name);
#   - no compiled-in CA bundle: the client chooses the system's at run time (cpp/src/client/tls_trust.hpp), so one
#     wheel finds it on Debian, Fedora, SUSE and Alpine alike; OpenSSL's default paths stay a last resort.
# simdjson: static, because the wheel links libstdc++ statically and a shared simdjson would bring the system's
# libstdc++ back beside it.

# _trunk_debian_source PACKAGE VERSION DIR LOG: the source package PACKAGE at VERSION unpacked into DIR/src.
_trunk_debian_source() {
  local package="$1" version="$2" dir="$3" log="$4" apt_dir="$3/apt" f
  mkdir -p "$apt_dir/sources" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/download"
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
    || ! (cd "$apt_dir/download" && "${apt[@]}" source --download-only "$package=$version") >>"$log" 2>&1; then
    echo "static-deps: could not fetch the distribution's source of $package $version (log: $log)" >&2
    tail -n 5 "$log" >&2
    return 1
  fi
  dpkg-source -x "$apt_dir/download/${package}_${version#*:}.dsc" "$dir/src" >>"$log" 2>&1 || {
    echo "static-deps: dpkg-source could not unpack $package $version (log: $log)" >&2
    return 1
  }
}

# _trunk_cmake_static NAME DIR PREFIX LOG [CMAKE ARGUMENTS...]: builds DIR/src and installs it into PREFIX.
_trunk_cmake_static() {
  local name="$1" dir="$2" prefix="$3" log="$4"
  shift 4
  local launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  if ! cmake -S "$dir/src" -B "$dir/build" -G Ninja "${launcher[@]}" -Wno-dev \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
      -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=OFF "$@" >>"$log" 2>&1 \
    || ! cmake --build "$dir/build" >>"$log" 2>&1 || ! cmake --install "$dir/build" >>"$log" 2>&1; then
    echo "static-deps: building $name failed (log: $log)" >&2
    tail -n 20 "$log" >&2
    return 1
  fi
}

trunk_static_deps() {
  local root curl_version simdjson_version recipe dir prefix log
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  curl_version="$(dpkg-query -W -f='${source:Version}' libcurl4-openssl-dev 2>/dev/null)" \
    && simdjson_version="$(dpkg-query -W -f='${source:Version}' libsimdjson-dev 2>/dev/null)" || {
    echo "static-deps: libcurl4-openssl-dev or libsimdjson-dev is not installed (scripts/install-system-deps)" >&2
    return 1
  }
  # The folder names the versions and this recipe: a new version or a change to this file builds again.
  recipe="$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-12)"
  dir="$root/build/static-deps/curl-$curl_version-simdjson-$simdjson_version-$recipe"
  prefix="$dir/prefix"
  if [ -f "$dir/done" ]; then
    echo "$prefix"
    return 0
  fi
  command -v dpkg-source >/dev/null || { echo "static-deps: dpkg-source is missing (package dpkg-dev)" >&2; return 1; }
  rm -rf "$dir"
  mkdir -p "$dir"
  log="$dir/build.log"

  _trunk_debian_source curl "$curl_version" "$dir/curl" "$log" || return 1
  # Every feature the client does not use is off by name, so a newer curl's defaults cannot bring one back
  # unnoticed (an option an older curl lacks is only a warning of CMake's).
  _trunk_cmake_static curl "$dir/curl" "$prefix" "$log" \
    -DBUILD_STATIC_LIBS=ON -DBUILD_CURL_EXE=OFF -DENABLE_CURL_MANUAL=OFF -DBUILD_LIBCURL_DOCS=OFF \
    -DHTTP_ONLY=ON -DCURL_USE_OPENSSL=ON -DOPENSSL_USE_STATIC_LIBS=ON -DCURL_ZLIB=ON -DZLIB_USE_STATIC_LIBS=ON \
    -DUSE_NGHTTP2=OFF -DUSE_NGTCP2=OFF -DUSE_QUICHE=OFF -DUSE_MSH3=OFF -DCURL_BROTLI=OFF -DCURL_ZSTD=OFF \
    -DUSE_LIBIDN2=OFF -DCURL_USE_LIBPSL=OFF -DCURL_USE_LIBSSH2=OFF -DCURL_USE_LIBSSH=OFF -DCURL_USE_GSSAPI=OFF \
    -DCURL_DISABLE_LDAP=ON -DCURL_DISABLE_LDAPS=ON -DUSE_LIBRTMP=OFF -DCURL_DISABLE_COOKIES=ON \
    -DCURL_DISABLE_NTLM=ON -DENABLE_THREADED_RESOLVER=ON -DENABLE_ARES=OFF \
    -DCURL_CA_BUNDLE=none -DCURL_CA_PATH=none -DCURL_CA_FALLBACK=ON || return 1

  _trunk_debian_source simdjson "$simdjson_version" "$dir/simdjson" "$log" || return 1
  _trunk_cmake_static simdjson "$dir/simdjson" "$prefix" "$log" \
    -DSIMDJSON_DEVELOPER_MODE=OFF -DSIMDJSON_ENABLE_THREADS=ON -DSIMDJSON_EXCEPTIONS=ON || return 1

  touch "$dir/done"
  echo "$prefix"
}
