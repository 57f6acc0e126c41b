// The host of the precompiled headers (framework/CMakeLists.txt: rankone_precompiled); nothing else.
