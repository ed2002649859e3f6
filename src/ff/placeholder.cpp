int splitprove_placeholder_unused = 0;
