# trunk_enable_warnings(target): the project's warning set, as errors when TRUNK_WARNINGS_AS_ERRORS is on.
function(trunk_enable_warnings target)
  if(MSVC)
    target_compile_options(${target} PRIVATE /W4 $<$<BOOL:${TRUNK_WARNINGS_AS_ERRORS}>:/WX>)
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic
                                             $<$<BOOL:${TRUNK_WARNINGS_AS_ERRORS}>:-Werror>)
  endif()
endfunction()
