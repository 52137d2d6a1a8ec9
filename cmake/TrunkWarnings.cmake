# trunk_enable_warnings(target): the project's warning set, as errors when TRUNK_WARNINGS_AS_ERRORS is on.
function(trunk_enable_warnings target)
  if(MSVC)
    target_compile_options(${target} PRIVATE /W4 $<$<BOOL:${TRUNK_WARNINGS_AS_ERRORS}>:/WX>)
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic
                                             $<$<BOOL:${TRUNK_WARNINGS_AS_ERRORS}>:-Werror>)
    # GCC 12 reports impossible -Wrestrict overlaps inside libstdc++'s operator+(const char*, string&&) at -O3
    # (GCC bug 105329, fixed in 13); the Python wheel builds at -O3, so keep that one false positive quiet.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      target_compile_options(${target} PRIVATE -Wno-restrict)
    endif()
  endif()
endfunction()
