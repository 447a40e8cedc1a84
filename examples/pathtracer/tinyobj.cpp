// tinyobjloader's implementation (the header of Debian's
// libtinyobjloader-dev), compiled into the scene library so that
// sluice-render needs no libtinyobjloader.so where it runs.
#define TINYOBJLOADER_IMPLEMENTATION
#include <tiny_obj_loader.h>
