# Installation: the library, the public headers, a CMake package (spxConfig.cmake,
# spxConfigVersion.cmake, targets spx::spx) and a pkg-config file spx.pc.
include(CMakePackageConfigHelpers)

install(TARGETS spx EXPORT spxTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/spx DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(SPX_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/spx)
install(EXPORT spxTargets NAMESPACE spx:: DESTINATION ${SPX_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/spxConfig.cmake.in
  ${PROJECT_BINARY_DIR}/spxConfig.cmake INSTALL_DESTINATION ${SPX_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/spxConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/spxConfig.cmake ${PROJECT_BINARY_DIR}/spxConfigVersion.cmake
  DESTINATION ${SPX_CMAKE_DIR})

# The .pc file locates the prefix relative to itself, so an install moved with --prefix works.
file(RELATIVE_PATH SPX_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(${PROJECT_SOURCE_DIR}/cmake/spx.pc.in ${PROJECT_BINARY_DIR}/spx.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/spx.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
