cost trian
