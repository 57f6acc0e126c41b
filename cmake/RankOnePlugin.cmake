# rankone_add_plugin(NAME SOURCES...)
# Builds one plugin library (a MODULE with hidden visibility and one exported entry point) into
# the folder the rankone CLI searches, and installs it beside the CLI. Used in-tree and, through the
# installed RankOne package, by plugins built out of tree.
function(rankone_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  if(TARGET rankone_core)
    target_link_libraries(${name} PRIVATE rankone_core)
    rankone_use_precompiled(${name})  # in the tree: the parsed headers
  else()
    target_link_libraries(${name} PRIVATE RankOne::core)
  endif()
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(DEFINED RANKONE_PLUGIN_OUTPUT_DIR)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${RANKONE_PLUGIN_OUTPUT_DIR})
  endif()
  if(RANKONE_PLUGIN_INSTALL_DIR)
    set_target_properties(${name} PROPERTIES INSTALL_RPATH "$ORIGIN/../..")
    install(TARGETS ${name} LIBRARY DESTINATION ${RANKONE_PLUGIN_INSTALL_DIR})
  endif()
  set_property(GLOBAL APPEND PROPERTY RANKONE_PLUGIN_TARGETS ${name})
endfunction()
