# CPU tests of the SR-BCRS family's host planning (label `cpu`): the strided row-major layout with
# two row pointers per vector-row, padding, the int4 column-index shuffle, value re-packing, bad
# structures, and a host SpMM read from the layout equal to the reference. The planning source is
# compiled in directly (libspx hides its internals).
add_executable(test_srbcrs_layout ${CMAKE_CURRENT_LIST_DIR}/test_srbcrs_layout.cpp
                                  ${PROJECT_SOURCE_DIR}/src/families/srbcrs/plan/layout.cpp)
target_link_libraries(test_srbcrs_layout PRIVATE spx_catch_main_cpu spx_reference spx_host
                                                 Catch2::Catch2)
target_compile_options(test_srbcrs_layout PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_srbcrs_layout TEST_PREFIX "test_srbcrs_layout: " PROPERTIES LABELS cpu)

# The SpMM kernel's byte mapping (families/srbcrs/kernels/lane_map.hpp, the very functions the kernel
# uses) emulated on the host against the reference, and its bank-conflict freedom.
add_executable(test_srbcrs_kernel_map ${CMAKE_CURRENT_LIST_DIR}/test_srbcrs_kernel_map.cpp
                                      ${PROJECT_SOURCE_DIR}/src/families/srbcrs/plan/layout.cpp)
target_link_libraries(test_srbcrs_kernel_map PRIVATE spx_catch_main_cpu spx_reference spx_host
                                                     Catch2::Catch2)
target_compile_options(test_srbcrs_kernel_map PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_srbcrs_kernel_map TEST_PREFIX "test_srbcrs_kernel_map: "
                     PROPERTIES LABELS cpu)

# The SDDMM's host side (plan/sddmm: refusals, variant, tasks, output map in both layouts,
# workspace) and its register k order (families/srbcrs/kernels/sddmm_lane_map.hpp), with a warp
# emulated on the host against the reference.
add_executable(test_srbcrs_sddmm_plan ${CMAKE_CURRENT_LIST_DIR}/test_srbcrs_sddmm_plan.cpp
                                      ${PROJECT_SOURCE_DIR}/src/families/srbcrs/plan/layout.cpp
                                      ${PROJECT_SOURCE_DIR}/src/families/srbcrs/plan/sddmm.cpp)
target_link_libraries(test_srbcrs_sddmm_plan PRIVATE spx_catch_main_cpu spx_reference spx_host
                                                     Catch2::Catch2)
target_compile_options(test_srbcrs_sddmm_plan PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_srbcrs_sddmm_plan TEST_PREFIX "test_srbcrs_sddmm_plan: "
                     PROPERTIES LABELS cpu)

# The family's decisions (plan/choice, plan/sddmm): read_overrides, choose for SpMM and SDDMM on
# representative shapes, every override, describe() verbatim, the per-call B / A sources.
add_executable(test_srbcrs_choice ${CMAKE_CURRENT_LIST_DIR}/test_srbcrs_choice.cpp
                                  ${PROJECT_SOURCE_DIR}/src/families/srbcrs/plan/layout.cpp
                                  ${PROJECT_SOURCE_DIR}/src/families/srbcrs/plan/choice.cpp
                                  ${PROJECT_SOURCE_DIR}/src/families/srbcrs/plan/sddmm.cpp)
target_link_libraries(test_srbcrs_choice PRIVATE spx_catch_main_cpu spx_host Catch2::Catch2)
target_compile_options(test_srbcrs_choice PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_srbcrs_choice TEST_PREFIX "test_srbcrs_choice: " PROPERTIES LABELS cpu)

# The public side of the SR-BCRS values layout (option, spxHostSrbcrsSlotPtr) through libspx.
add_executable(test_srbcrs_values_layout ${CMAKE_CURRENT_LIST_DIR}/test_srbcrs_values_layout.cpp)
target_include_directories(test_srbcrs_values_layout PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
target_link_libraries(test_srbcrs_values_layout PRIVATE spx_catch_main_cpu spx Catch2::Catch2)
target_compile_options(test_srbcrs_values_layout PRIVATE
                       $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra>)
catch_discover_tests(test_srbcrs_values_layout TEST_PREFIX "test_srbcrs_values_layout: "
                     PROPERTIES LABELS cpu)
