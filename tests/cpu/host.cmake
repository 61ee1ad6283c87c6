# CPU tests of the host layer: element types, the CPU reference, planning conversions (linked
# statically through spx_reference -> spx_host) and the exported spxHost* C functions (linked
# against the shared library, since those are its public symbols). Test names are prefixed
# with the executable so they cannot collide with other suites in ctest (spx_cpu_test,
# tests/CMakeLists.txt).

# Catch2's main, compiled once for all the CPU suites (here and in tests/families).
add_library(spx_catch_main_cpu OBJECT ${CMAKE_CURRENT_LIST_DIR}/catch_main.cpp)
target_link_libraries(spx_catch_main_cpu PUBLIC Catch2::Catch2)

foreach(name IN ITEMS test_dtype test_env test_reference test_planning test_prepared_sizes
                     test_serialize_format test_to_csr_reference)
  spx_cpu_test(${name} SOURCES ${CMAKE_CURRENT_LIST_DIR}/${name}.cpp LIBS spx_reference)
endforeach()

spx_cpu_test(test_host_tools SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_host_tools.cpp LIBS spx)
