# Installs the library, headers and a package config so that applications can write
#   find_package(bovw CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE bovw::bovw)
include(CMakePackageConfigHelpers)

install(TARGETS bovw EXPORT bovwTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET bovw_mpi)
  install(TARGETS bovw_mpi EXPORT bovwTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/bovw DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT bovwTargets NAMESPACE bovw:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bovw)

set(BOVW_CONFIG_WITH_OPENCV ${BOVW_WITH_OPENCV})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/bovwConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/bovwConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bovw)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/bovwConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/bovwConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/bovwConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bovw)
