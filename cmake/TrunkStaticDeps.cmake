# The wheels' static dependencies (TRUNK_STATIC_DEPS, set by scripts/build-wheel and scripts/install-package): the
# project's own static libcurl (HTTP and HTTPS only, OpenSSL, zlib) and simdjson, which scripts/lib/static-deps.sh
# builds into one prefix, with the distribution's static OpenSSL and zlib, all linked into the extension
# (docs/install.md#whats-inside-a-wheel). A source build leaves TRUNK_STATIC_DEPS empty and links the system's.
#
# Defines what the top-level CMakeLists.txt would otherwise find: CURL::libcurl, OpenSSL::Crypto (and SSL),
# simdjson::simdjson.

trunk_forget_cached_libraries(static)  # a tree configured before for a source build
# Before the first find_package(OpenSSL) of the project, so that curl's own CURLConfig.cmake, which asks for
# OpenSSL and ZLIB again, gets the same static targets.
set(OPENSSL_USE_STATIC_LIBS TRUE)
set(ZLIB_USE_STATIC_LIBS TRUE)
find_package(OpenSSL 3.0 REQUIRED COMPONENTS Crypto SSL)
find_package(ZLIB REQUIRED)
find_package(CURL 7.80 CONFIG REQUIRED PATHS "${TRUNK_STATIC_DEPS}" NO_DEFAULT_PATH)
find_package(simdjson 3 CONFIG REQUIRED PATHS "${TRUNK_STATIC_DEPS}" NO_DEFAULT_PATH)

# A shared library anywhere here would be copied into the wheel by auditwheel after all: say so here.
foreach(target IN ITEMS CURL::libcurl OpenSSL::SSL OpenSSL::Crypto ZLIB::ZLIB simdjson::simdjson)
  get_target_property(where ${target} LOCATION)
  if(NOT where MATCHES "\\.a$")
    message(FATAL_ERROR "TRUNK_STATIC_DEPS: ${target} is ${where}; the wheel links static libraries only")
  endif()
endforeach()
message(STATUS "Static dependencies from ${TRUNK_STATIC_DEPS}: libcurl ${CURL_VERSION}, simdjson ${simdjson_VERSION}, "
               "OpenSSL ${OPENSSL_VERSION}, zlib ${ZLIB_VERSION_STRING}")
