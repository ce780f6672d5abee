# Installs the library, headers, a package config and a pkg-config file, so that applications can write
#   find_package(bovw CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE bovw::bovw)
# or `pkg-config --cflags --libs bovw`.
include(CMakePackageConfigHelpers)

install(TARGETS bovw EXPORT bovwTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# bovw::bovw_mpi in an export set of its own, which bovwConfig.cmake loads only where MPI is found:
# an application of bovw::bovw alone needs no MPI development packages.
if(TARGET bovw_mpi)
  install(TARGETS bovw_mpi EXPORT bovwMpiTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT bovwMpiTargets NAMESPACE bovw:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bovw)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/bovw DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/bovw/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/bovw)
install(EXPORT bovwTargets NAMESPACE bovw:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bovw)

# pkg-config: the static library's own dependencies, by their Debian pkg-config names.
set(BOVW_PC_REQUIRES "eigen3 OpenCL")
if(BOVW_WITH_OPENCV)
  string(APPEND BOVW_PC_REQUIRES " opencv4 zlib libjpeg libpng yaml-0.1 pugixml lmdb")
endif()
file(RELATIVE_PATH BOVW_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(${CMAKE_CURRENT_LIST_DIR}/bovw.pc.in ${CMAKE_CURRENT_BINARY_DIR}/bovw.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/bovw.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(BOVW_CONFIG_WITH_OPENCV ${BOVW_WITH_OPENCV})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/bovwConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/bovwConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bovw)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/bovwConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/bovwConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/bovwConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bovw)
