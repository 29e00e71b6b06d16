'use strict';
console.log('nothing to build');
