# CPU tests of the NM family's host planning (label `cpu`): index validation, stage geometry,
# ridx / col_info layout (Fig. 4 of NM-SpMM), metadata overhead, the packing decision (Eq. 3)
# and the tile choice. The planning source is compiled in directly (libspx hides its internals).
add_executable(test_nm_layout ${CMAKE_CURRENT_LIST_DIR}/test_nm_layout.cpp
                              ${PROJECT_SOURCE_DIR}/src/families/nm/plan/layout.cpp)
target_link_libraries(test_nm_layout PRIVATE spx_catch_main_cpu spx_host Catch2::Catch2)
target_compile_options(test_nm_layout PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_nm_layout TEST_PREFIX "test_nm_layout: " PROPERTIES LABELS cpu)

# CPU tests of the NM family's one decision (plan/choice.cpp: choose, read_overrides,
# config_for_call, describe), with the planning sources compiled in directly.
add_executable(test_nm_choice ${CMAKE_CURRENT_LIST_DIR}/test_nm_choice.cpp
                              ${PROJECT_SOURCE_DIR}/src/families/nm/plan/choice.cpp
                              ${PROJECT_SOURCE_DIR}/src/families/nm/plan/layout.cpp)
target_link_libraries(test_nm_choice PRIVATE spx_catch_main_cpu spx_host Catch2::Catch2)
target_compile_options(test_nm_choice PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_nm_choice TEST_PREFIX "test_nm_choice: " PROPERTIES LABELS cpu)
