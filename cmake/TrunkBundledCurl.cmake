# The wheels' HTTP stack (TRUNK_BUNDLED_CURL, set by scripts/build-wheel and scripts/install-package): the
# project's own static libcurl (scripts/lib/lean-curl.sh builds it: HTTP and HTTPS only, OpenSSL, zlib) and the
# distribution's static OpenSSL and zlib, all linked into the extension, so the wheel copies in no library at all
# (docs/install.md#whats-inside-a-wheel). A source build leaves TRUNK_BUNDLED_CURL empty and links the system's.
#
# Defines what the top-level CMakeLists.txt would otherwise find: CURL::libcurl, OpenSSL::Crypto (and SSL).

# Before the first find_package(OpenSSL) of the project, so that curl's own CURLConfig.cmake, which asks for
# OpenSSL and ZLIB again, gets the same static targets.
# A tree configured before without TRUNK_BUNDLED_CURL has the shared libraries in its cache: find them again.
foreach(cached IN ITEMS OPENSSL_CRYPTO_LIBRARY OPENSSL_SSL_LIBRARY ZLIB_LIBRARY ZLIB_LIBRARY_RELEASE)
  if(DEFINED CACHE{${cached}} AND NOT "$CACHE{${cached}}" MATCHES "\\.a$")
    unset(${cached} CACHE)
  endif()
endforeach()
set(OPENSSL_USE_STATIC_LIBS TRUE)
set(ZLIB_USE_STATIC_LIBS TRUE)
find_package(OpenSSL 3.0 REQUIRED COMPONENTS Crypto SSL)
find_package(ZLIB REQUIRED)
find_package(CURL 7.80 CONFIG REQUIRED PATHS "${TRUNK_BUNDLED_CURL}" NO_DEFAULT_PATH)

# A shared library anywhere in this stack would be copied into the wheel by auditwheel after all: say so here.
foreach(target IN ITEMS CURL::libcurl OpenSSL::SSL OpenSSL::Crypto ZLIB::ZLIB)
  get_target_property(where ${target} LOCATION)
  if(NOT where MATCHES "\\.a$")
    message(FATAL_ERROR "TRUNK_BUNDLED_CURL: ${target} is ${where}; the wheel links static libraries only")
  endif()
endforeach()
message(STATUS "HTTP stack: the project's static libcurl ${CURL_VERSION} from ${TRUNK_BUNDLED_CURL}, static OpenSSL "
               "${OPENSSL_VERSION} and zlib ${ZLIB_VERSION_STRING}")
