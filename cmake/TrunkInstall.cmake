# Installs the C++ library as the CMake package `trunk_api` (target trunk::api, and trunk::sandbox when
# built) for native callers: find_package(trunk_api CONFIG REQUIRED).
include(CMakePackageConfigHelpers)

set(TRUNK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/trunk_api)
set(trunk_install_targets trunk_api)
if(TARGET trunk_sandbox)
  list(APPEND trunk_install_targets trunk_sandbox)
endif()

install(TARGETS ${trunk_install_targets}
        EXPORT trunk_apiTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET trunk-sandbox)
  install(TARGETS trunk-sandbox RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT dev)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/cpp/include/trunk ${PROJECT_BINARY_DIR}/generated/include/trunk
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
        FILES_MATCHING PATTERN "*.hpp")
if(TARGET trunk_sandbox)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/cpp/sandbox/include/trunk
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
          FILES_MATCHING PATTERN "*.hpp")
endif()
install(EXPORT trunk_apiTargets NAMESPACE trunk:: DESTINATION ${TRUNK_CMAKE_DIR} COMPONENT dev)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/trunk_apiConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/trunk_apiConfig.cmake
                              INSTALL_DESTINATION ${TRUNK_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/trunk_apiConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/trunk_apiConfig.cmake ${PROJECT_BINARY_DIR}/trunk_apiConfigVersion.cmake
        DESTINATION ${TRUNK_CMAKE_DIR} COMPONENT dev)
