# trunk_forget_cached_libraries(KEEP static|shared): a build tree configured before with the other HTTP stack
# (TRUNK_STATIC_DEPS set or not) has the other kind of OpenSSL and zlib library, and the other curl and simdjson
# packages, in its cache; find_package would reuse them. Forget those, so that they are found again.
function(trunk_forget_cached_libraries keep)
  foreach(cached IN ITEMS OPENSSL_CRYPTO_LIBRARY OPENSSL_SSL_LIBRARY ZLIB_LIBRARY ZLIB_LIBRARY_RELEASE)
    if(DEFINED CACHE{${cached}})
      string(REGEX MATCH "\\.a$" is_static "$CACHE{${cached}}")
      if((keep STREQUAL "static" AND NOT is_static) OR (keep STREQUAL "shared" AND is_static))
        unset(${cached} CACHE)
      endif()
    endif()
  endforeach()
  # curl's and simdjson's packages: for the static stack, those of this TRUNK_STATIC_DEPS prefix only (another
  # version's prefix is forgotten too); for the system's, none under a static-deps folder.
  foreach(package IN ITEMS CURL simdjson)
    if(DEFINED CACHE{${package}_DIR})
      if(keep STREQUAL "static")
        cmake_path(IS_PREFIX TRUNK_STATIC_DEPS "$CACHE{${package}_DIR}" NORMALIZE inside)
        set(forget NOT inside)
      else()
        string(FIND "$CACHE{${package}_DIR}" "/static-deps/" at)
        set(forget NOT at EQUAL -1)
      endif()
      if(${forget})
        unset(${package}_DIR CACHE)
      endif()
    endif()
  endforeach()
endfunction()
