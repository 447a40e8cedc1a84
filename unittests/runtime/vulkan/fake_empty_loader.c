/*===- fake_empty_loader.c - A libvulkan.so.1 without entry points -------===*
 *
 * Built as libvulkan.so.1 for vulkan_fault_test.cpp: it loads, but exports
 * no vkGetInstanceProcAddr.
 *
 *===---------------------------------------------------------------------===*/
int sluice_fake_vulkan_loader_without_entry_points = 1;
